# Least privilege. The functions may write their own log groups, manage their VPC network
# interfaces (EC2 offers no resource-level scoping for those, hence "*"), read exactly their
# secrets (secrets.tf: the settings document, the application role's and the master user's
# credentials, the webhook signing secrets), write the application role's secret (the migrate
# step) and send a failed maintenance run to its destination. The proxy may read the application
# role's secret.
#
# Secrets are granted by full ARN: IAM matches the ARN Secrets Manager gave the secret, with its
# 6-character suffix (variables.tf refuses a partial secret_arn).

data "aws_iam_policy_document" "function_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "function" {
  name_prefix        = "${var.name}-fn-"
  assume_role_policy = data.aws_iam_policy_document.function_assume.json
}

locals {
  failure_destination_service = split(":", local.maintenance_failure_destination)[2]
  failure_destination_action = {
    sqs    = "sqs:SendMessage"
    sns    = "sns:Publish"
    lambda = "lambda:InvokeFunction"
    events = "events:PutEvents"
  }[local.failure_destination_service]
  secret_kms_keys = compact([var.kms_key_arn, var.db_kms_key_arn])
}

data "aws_iam_policy_document" "function" {
  statement {
    sid     = "Logs"
    actions = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = [
      "${aws_cloudwatch_log_group.function.arn}:*",
      "${aws_cloudwatch_log_group.maintenance.arn}:*",
    ]
  }

  statement {
    sid       = "ReadOwnSecrets"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = local.function_secret_arns
  }

  # The migrate step makes the application role's password and writes it here.
  statement {
    sid       = "WriteApplicationRoleSecret"
    actions   = ["secretsmanager:PutSecretValue"]
    resources = [aws_secretsmanager_secret.app.arn]
  }

  # Secrets encrypted with a customer-managed key (kms_key_arn for secrets you reference,
  # db_kms_key_arn for the master user's) are decrypted through Secrets Manager only.
  dynamic "statement" {
    for_each = length(local.secret_kms_keys) == 0 ? [] : [local.secret_kms_keys]
    content {
      sid       = "DecryptOwnSecrets"
      actions   = ["kms:Decrypt"]
      resources = statement.value
      condition {
        test     = "StringEquals"
        variable = "kms:ViaService"
        values   = ["secretsmanager.${var.region}.amazonaws.com"]
      }
    }
  }

  statement {
    sid       = "MaintenanceFailureDestination"
    actions   = [local.failure_destination_action]
    resources = [local.maintenance_failure_destination]
  }

  statement {
    sid = "VpcNetworkInterfaces"
    actions = [
      "ec2:CreateNetworkInterface",
      "ec2:DescribeNetworkInterfaces",
      "ec2:DescribeSubnets",
      "ec2:DeleteNetworkInterface",
      "ec2:AssignPrivateIpAddresses",
      "ec2:UnassignPrivateIpAddresses",
    ]
    resources = ["*"]
  }
}

resource "aws_iam_role_policy" "function" {
  name   = "${var.name}-function"
  role   = aws_iam_role.function.id
  policy = data.aws_iam_policy_document.function.json
}

data "aws_iam_policy_document" "proxy_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["rds.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "proxy" {
  name_prefix        = "${var.name}-proxy-"
  assume_role_policy = data.aws_iam_policy_document.proxy_assume.json
}

data "aws_iam_policy_document" "proxy" {
  statement {
    sid       = "ReadApplicationRoleSecret"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = [aws_secretsmanager_secret.app.arn]
  }
}

resource "aws_iam_role_policy" "proxy" {
  name   = "${var.name}-proxy"
  role   = aws_iam_role.proxy.id
  policy = data.aws_iam_policy_document.proxy.json
}
