# Maintenance (retention, hash purge): an EventBridge rule invokes the "live" alias on a schedule
# with EventBridge's own scheduled event (source "aws.events", detail-type "Scheduled Event"): the
# target sets no input, so nothing secret is stored in it (events:ListTargetsByRule shows a
# target's input). The function runs maintenance for that event without an API key; only
# principals allowed lambda:InvokeFunction (this rule, by the permission below) can send it, and
# API Gateway requests never look like it (README, Deploy to AWS).

resource "aws_cloudwatch_event_rule" "maintenance" {
  name                = "${var.name}-maintenance"
  description         = "Exactly maintenance: retention and transaction-hash purge"
  schedule_expression = var.maintenance_schedule
}

resource "aws_cloudwatch_event_target" "maintenance" {
  rule = aws_cloudwatch_event_rule.maintenance.name
  arn  = aws_lambda_alias.live.arn
}

resource "aws_lambda_permission" "maintenance" {
  statement_id  = "AllowMaintenanceSchedule"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this.function_name
  qualifier     = aws_lambda_alias.live.name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.maintenance.arn
}
