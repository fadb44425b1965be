# Maintenance (retention, transaction-hash purge) runs in a function of its own, "<name>-maintenance":
# the same package, handler and settings as the HTTP function, but not behind API Gateway, so its
# timeout (maintenance_timeout_seconds, default 300 s) is not bound by the HTTP API's 30 s. An
# EventBridge rule invokes it on maintenance_schedule with EventBridge's own scheduled event
# (source "aws.events", detail-type "Scheduled Event"): the target sets no input, so nothing secret
# is stored in it (events:ListTargetsByRule shows a target's input), and the function runs the job
# for that event without an API key (only principals allowed lambda:InvokeFunction can send it).
#
# EventBridge invokes it asynchronously; its FailedInvocations metric counts only invocations
# EventBridge could not deliver, not runs that failed. A failed run is retried once by Lambda and
# then sent to the on-failure destination (an SQS queue the module creates, or
# maintenance_failure_destination_arn), which an alarm watches (alarms.tf).
#
# At most one run at a time (reserved concurrency 1): a run still going when the next is due
# makes that one wait in Lambda's queue, up to its maximum event age. With
# lambda_reserved_concurrency = -1 (an account that cannot reserve) nothing is reserved here
# either, and runs may overlap: that is safe, since each step of the job re-reads its partition's
# watermarks under that partition's row lock (dev.exactly.retention.MaintenanceService).

locals {
  maintenance_name                = "${var.name}-maintenance"
  create_maintenance_failed_queue = var.maintenance_failure_destination_arn == null
  maintenance_failure_destination = local.create_maintenance_failed_queue ? aws_sqs_queue.maintenance_failed[0].arn : var.maintenance_failure_destination_arn
}

resource "aws_cloudwatch_log_group" "maintenance" {
  name              = "/aws/lambda/${local.maintenance_name}"
  retention_in_days = var.log_retention_days
}

# Not published and without SnapStart: it starts cold every few minutes at most, where a start's
# second or two does not matter, and the schedule always runs the newest code.
resource "aws_lambda_function" "maintenance" {
  function_name    = local.maintenance_name
  description      = "Exactly: scheduled maintenance (retention, transaction-hash purge)"
  role             = aws_iam_role.function.arn
  runtime          = var.lambda_runtime
  handler          = local.handler
  filename         = var.function_zip
  source_code_hash = filebase64sha256(var.function_zip)
  memory_size      = var.lambda_memory_mb
  timeout          = var.maintenance_timeout_seconds
  architectures    = ["x86_64"]

  reserved_concurrent_executions = var.lambda_reserved_concurrency == -1 ? -1 : 1

  vpc_config {
    subnet_ids         = var.subnet_ids
    security_group_ids = local.lambda_security_group_ids
  }

  environment {
    variables = local.environment
  }

  logging_config {
    log_format = "JSON"
    log_group  = aws_cloudwatch_log_group.maintenance.name
  }

  depends_on = [
    aws_iam_role_policy.function,
    aws_db_proxy_target.this,
    aws_secretsmanager_secret_version.settings,
    aws_secretsmanager_secret_version.webhook,
  ]
}

resource "aws_sqs_queue" "maintenance_failed" {
  count                     = local.create_maintenance_failed_queue ? 1 : 0
  name                      = "${var.name}-maintenance-failed"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_lambda_function_event_invoke_config" "maintenance" {
  function_name                = aws_lambda_function.maintenance.function_name
  maximum_retry_attempts       = 1
  maximum_event_age_in_seconds = 3600

  destination_config {
    on_failure {
      destination = local.maintenance_failure_destination
    }
  }
}

resource "aws_cloudwatch_event_rule" "maintenance" {
  name                = local.maintenance_name
  description         = "Exactly maintenance: retention and transaction-hash purge"
  schedule_expression = var.maintenance_schedule
}

resource "aws_cloudwatch_event_target" "maintenance" {
  rule = aws_cloudwatch_event_rule.maintenance.name
  arn  = aws_lambda_function.maintenance.arn
}

resource "aws_lambda_permission" "maintenance" {
  statement_id  = "AllowMaintenanceSchedule"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.maintenance.function_name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.maintenance.arn
}
