# Maintenance (retention, hash purge): an EventBridge rule invokes the "live" alias on a schedule
# with an API Gateway payload 2.0 event for POST /api/v1/admin/maintenance, carrying the
# maintenance key (generated; its digest is among the function's accepted keys).

resource "aws_cloudwatch_event_rule" "maintenance" {
  name                = "${var.name}-maintenance"
  description         = "Exactly maintenance: retention and transaction-hash purge"
  schedule_expression = var.maintenance_schedule
}

resource "aws_cloudwatch_event_target" "maintenance" {
  rule = aws_cloudwatch_event_rule.maintenance.name
  arn  = aws_lambda_alias.live.arn
  input = jsonencode({
    version        = "2.0"
    routeKey       = "$default"
    rawPath        = "/api/v1/admin/maintenance"
    rawQueryString = ""
    headers = {
      authorization  = "Bearer ${random_password.maintenance_key.result}"
      "content-type" = "application/json"
    }
    requestContext = {
      http = {
        method   = "POST"
        path     = "/api/v1/admin/maintenance"
        protocol = "HTTP/1.1"
        sourceIp = "127.0.0.1"
      }
      routeKey = "$default"
      stage    = "$default"
    }
    body            = "{}"
    isBase64Encoded = false
  })
}

resource "aws_lambda_permission" "maintenance" {
  statement_id  = "AllowMaintenanceSchedule"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this.function_name
  qualifier     = aws_lambda_alias.live.name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.maintenance.arn
}
