output "api_url" {
  description = "Base URL of the HTTP API, without a trailing slash: $URL/api/v1/push."
  value       = local.api_url
}

output "function_name" {
  description = "Name of the HTTP function."
  value       = aws_lambda_function.this.function_name
}

output "function_version" {
  description = "The version the \"live\" alias serves. Wait for it before the first request: aws lambda wait published-version-active --function-name <function_name> --qualifier <function_version>."
  value       = aws_lambda_alias.live.function_version
}

output "function_alias_arn" {
  description = "ARN of the alias that serves traffic (the published, SnapStart-enabled version)."
  value       = aws_lambda_alias.live.arn
}

output "maintenance_function_name" {
  description = "Name of the maintenance function (invoked by the schedule; aws lambda invoke runs it by hand)."
  value       = aws_lambda_function.maintenance.function_name
}

output "maintenance_failure_destination" {
  description = "Where failed maintenance runs are sent (an SQS queue the module created unless you named one)."
  value       = local.maintenance_failure_destination
}

output "proxy_endpoint" {
  description = "Endpoint of the RDS Proxy (TLS required)."
  value       = aws_db_proxy.this.endpoint
}

output "db_endpoint" {
  description = "Address of the RDS instance (the migrate step connects to it directly)."
  value       = aws_db_instance.this.address
}

output "db_master_secret_arn" {
  description = "ARN of the secret in which RDS keeps and rotates the master user's credentials."
  value       = local.master_secret_arn
}

output "db_app_secret_arn" {
  description = "ARN of the application role's secret (written by the migrate step)."
  value       = aws_secretsmanager_secret.app.arn
}

output "settings_secret_arn" {
  description = "ARN of the settings document the functions read at start (no secret values in it)."
  value       = aws_secretsmanager_secret.settings.arn
}

output "webhook_urls" {
  description = "The URL to give each webhook provider, by source name."
  value       = local.webhook_urls
}

output "webhook_secret_arns" {
  description = "The Secrets Manager secret each webhook source's signing secret is read from, by source name."
  value       = local.webhook_secret_arns
}

output "api_access_log_group" {
  description = "The HTTP API's access log (one JSON line per request)."
  value       = aws_cloudwatch_log_group.api.name
}
