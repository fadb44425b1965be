# Delivery to destinations in the Lambda shape (docs/destinations.md, "The Lambda shape").
#
# A function runs only while it is invoked, so delivery runs in invocations of the HTTP function
# ("drains", event {"exactly":"deliver"}):
# - after a push, webhook or transaction stored messages in a queue with destinations, the function
#   invokes itself asynchronously (its "live" alias, InvocationType Event) with
#   {"exactly":"deliver","queue":"<queue>"}, at most once per queue while a drain of it runs or
#   within a second of the last one asked for;
# - every delivery_schedule (1 minute), this rule invokes {"exactly":"deliver"}: every destination's
#   retries that came due, partitions a drain parked at its deadline, and catch-up after a receiver
#   recovered.
# A drain delivers until nothing is due or shortly before the function's timeout; one stopped by
# the timeout with work left invokes the next at once.
#
# The destinations' settings go into the settings document (secrets.tf), their signing secrets as
# Secrets Manager references read at start; the function's role may send to exactly the named SQS
# queues and event buses, and invoke only its own "live" alias.

locals {
  destination_properties = merge([
    for name, d in var.destinations : {
      for option, value in {
        "queue"          = d.queue
        "type"           = d.type
        "url"            = d.url
        "queue-url"      = d.queue_url
        "event-bus"      = d.event_bus_arn
        "event-source"   = d.event_source
        "detail-type"    = d.detail_type
        "timeout-ms"     = d.timeout_ms == null ? null : tostring(d.timeout_ms)
        "max-attempts"   = d.max_attempts == null ? null : tostring(d.max_attempts)
        "backoff-ms"     = d.backoff_ms == null ? null : tostring(d.backoff_ms)
        "backoff-cap-ms" = d.backoff_cap_ms == null ? null : tostring(d.backoff_cap_ms)
        "ordered"        = d.ordered == null ? null : tostring(d.ordered)
      } : format("exactly.destinations.%s.%s", name, option) => value if value != null
    }
  ]...)

  delivery_properties = length(var.delivery_allowed_hosts) == 0 ? {} : {
    "exactly.delivery.allowed-hosts" = join(",", var.delivery_allowed_hosts)
  }

  destination_secrets = {
    for name, d in var.destinations : format("exactly.destinations.%s.signing-secret", name) => d.signing_secret_arn
    if d.signing_secret_arn != null
  }

  # sqs:SendMessage on each queue its URL names: https://sqs.<region>.amazonaws.com/<account>/<name>
  destination_queue_arns = distinct([
    for d in values(var.destinations) : format("arn:aws:sqs:%s:%s:%s",
      regex("^https://sqs\\.([a-z0-9-]+)\\.", d.queue_url)[0],
      split("/", d.queue_url)[3],
      split("/", d.queue_url)[4],
    ) if d.type == "sqs"
  ])

  destination_bus_arns = distinct([for d in values(var.destinations) : d.event_bus_arn if d.type == "eventbridge"])
}

# What delivery sends to: known at plan (tests/plan.tftest.hcl reads it).
data "aws_iam_policy_document" "destinations" {

  dynamic "statement" {
    for_each = length(local.destination_queue_arns) == 0 ? [] : [local.destination_queue_arns]
    content {
      sid       = "SendToDestinationQueues"
      actions   = ["sqs:SendMessage"]
      resources = statement.value
    }
  }

  dynamic "statement" {
    for_each = length(local.destination_bus_arns) == 0 ? [] : [local.destination_bus_arns]
    content {
      sid       = "PutEventsToDestinationBuses"
      actions   = ["events:PutEvents"]
      resources = statement.value
    }
  }

  # An SSE-KMS queue: SendMessage needs the key's GenerateDataKey and Decrypt, through SQS only.
  dynamic "statement" {
    for_each = length(var.destination_kms_key_arns) == 0 ? [] : [var.destination_kms_key_arns]
    content {
      sid       = "EncryptForDestinationQueues"
      actions   = ["kms:GenerateDataKey", "kms:Decrypt"]
      resources = statement.value
      condition {
        test     = "StringEquals"
        variable = "kms:ViaService"
        values   = ["sqs.${var.region}.amazonaws.com"]
      }
    }
  }
}

# Separate from aws_iam_role_policy.function, which the function waits for: this one names the
# function's own alias, so it is created after the function.
data "aws_iam_policy_document" "delivery" {
  source_policy_documents = [data.aws_iam_policy_document.destinations.json]

  statement {
    sid       = "InvokeItselfForDelivery"
    actions   = ["lambda:InvokeFunction"]
    resources = [aws_lambda_alias.live.arn]
  }
}

resource "aws_iam_role_policy" "delivery" {
  name   = "${var.name}-delivery"
  role   = aws_iam_role.function.id
  policy = data.aws_iam_policy_document.delivery.json
}

# A drain waiting in Lambda's queue is not retried nor kept long: the next one (the next store's,
# or the schedule's within a minute) delivers the same messages.
resource "aws_lambda_function_event_invoke_config" "delivery" {
  function_name                = aws_lambda_function.this.function_name
  qualifier                    = aws_lambda_alias.live.name
  maximum_retry_attempts       = 0
  maximum_event_age_in_seconds = 300
}

resource "aws_cloudwatch_event_rule" "delivery" {
  name                = "${var.name}-delivery"
  description         = "Exactly delivery: drain every destination (retries, parked partitions, catch-up)"
  schedule_expression = var.delivery_schedule
}

# The input is the drain event itself; it holds nothing secret (events:ListTargetsByRule shows it).
resource "aws_cloudwatch_event_target" "delivery" {
  rule  = aws_cloudwatch_event_rule.delivery.name
  arn   = aws_lambda_alias.live.arn
  input = jsonencode({ exactly = "deliver" })
}

resource "aws_lambda_permission" "delivery" {
  statement_id  = "AllowDeliverySchedule"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this.function_name
  qualifier     = aws_lambda_alias.live.name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.delivery.arn
}
