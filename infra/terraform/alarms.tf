# CloudWatch alarms on what an operator must hear about. Each notifies alarm_topic_arns (alarm and
# back to OK); with none given they exist, visible in the console, and notify nobody.

locals {
  alarm_actions = var.alarm_topic_arns
  # the database's free storage alarm: below a tenth of the allocated storage
  free_storage_threshold_bytes = var.db_allocated_storage_gb * 1024 * 1024 * 1024 / 10
}

resource "aws_cloudwatch_metric_alarm" "function_errors" {
  alarm_name          = "${var.name}-function-errors"
  alarm_description   = "The HTTP function's invocations failed (an invocation error, not a problem+json answer): see its log."
  namespace           = "AWS/Lambda"
  metric_name         = "Errors"
  dimensions          = { FunctionName = aws_lambda_function.this.function_name, Resource = "${aws_lambda_function.this.function_name}:${aws_lambda_alias.live.name}" }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "function_throttles" {
  alarm_name          = "${var.name}-function-throttles"
  alarm_description   = "Requests found every instance busy (reserved concurrency reached): API Gateway answered them with its own 503/429. Raise lambda_reserved_concurrency with db_max_connections, or lower the load."
  namespace           = "AWS/Lambda"
  metric_name         = "Throttles"
  dimensions          = { FunctionName = aws_lambda_function.this.function_name, Resource = "${aws_lambda_function.this.function_name}:${aws_lambda_alias.live.name}" }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "api_5xx" {
  alarm_name          = "${var.name}-api-5xx"
  alarm_description   = "The HTTP API answered 5xx (the function's 503 problem+json for a database away or over its deadline, or API Gateway's own for a timeout or a throttled function)."
  namespace           = "AWS/ApiGateway"
  metric_name         = "5xx"
  dimensions          = { ApiId = aws_apigatewayv2_api.this.id, Stage = aws_apigatewayv2_stage.default.name }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 5
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "maintenance_errors" {
  alarm_name          = "${var.name}-maintenance-errors"
  alarm_description   = "A scheduled maintenance run failed (EventBridge's FailedInvocations does not count these): see the maintenance function's log."
  namespace           = "AWS/Lambda"
  metric_name         = "Errors"
  dimensions          = { FunctionName = aws_lambda_function.maintenance.function_name }
  statistic           = "Sum"
  period              = 3600
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "maintenance_failed_queue" {
  count               = local.create_maintenance_failed_queue ? 1 : 0
  alarm_name          = "${var.name}-maintenance-failed"
  alarm_description   = "A maintenance run failed after its retry and was sent to ${aws_sqs_queue.maintenance_failed[0].name} (the message holds the error)."
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.maintenance_failed[0].name }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "db_cpu" {
  alarm_name          = "${var.name}-db-cpu"
  alarm_description   = "The database's CPU has been above 80% for 15 minutes."
  namespace           = "AWS/RDS"
  metric_name         = "CPUUtilization"
  dimensions          = { DBInstanceIdentifier = aws_db_instance.this.identifier }
  statistic           = "Average"
  period              = 300
  evaluation_periods  = 3
  threshold           = 80
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "missing"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "db_storage" {
  alarm_name          = "${var.name}-db-free-storage"
  alarm_description   = "The database has less than a tenth of its allocated storage free (storage autoscaling, if on, may be at db_max_allocated_storage_gb)."
  namespace           = "AWS/RDS"
  metric_name         = "FreeStorageSpace"
  dimensions          = { DBInstanceIdentifier = aws_db_instance.this.identifier }
  statistic           = "Minimum"
  period              = 300
  evaluation_periods  = 1
  threshold           = local.free_storage_threshold_bytes
  comparison_operator = "LessThanThreshold"
  treat_missing_data  = "missing"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

resource "aws_cloudwatch_metric_alarm" "db_connections" {
  alarm_name          = "${var.name}-db-connections"
  alarm_description   = "The database holds more than 80% of db_max_connections."
  namespace           = "AWS/RDS"
  metric_name         = "DatabaseConnections"
  dimensions          = { DBInstanceIdentifier = aws_db_instance.this.identifier }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 2
  threshold           = floor(var.db_max_connections * 0.8)
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "missing"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# The Lambda shape opens no pinning session state (docs/deploy-aws.md, "RDS Proxy and pinning"),
# but only AWS can say whether its connections stay unpinned: this alarm is the check.
resource "aws_cloudwatch_metric_alarm" "proxy_pinning" {
  alarm_name          = "${var.name}-proxy-pinned-connections"
  alarm_description   = "Client connections of the RDS Proxy have been pinned to database connections for 15 minutes: each then holds a database connection for its whole session. The proxy's log names the reason (turn on debug logging to see it)."
  namespace           = "AWS/RDS"
  metric_name         = "DatabaseConnectionsCurrentlySessionPinned"
  dimensions          = { ProxyName = aws_db_proxy.this.name }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 3
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}
