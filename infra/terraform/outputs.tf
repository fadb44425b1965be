output "api_url" {
  description = "Base URL of the HTTP API, without a trailing slash: $URL/api/v1/push."
  value       = local.api_url
}

output "api_key" {
  description = "An API key the function accepts (send it as 'Authorization: Bearer <key>'): terraform output -raw api_key."
  value       = random_password.api_key.result
  sensitive   = true
}

output "function_name" {
  description = "Name of the Lambda function."
  value       = aws_lambda_function.this.function_name
}

output "function_alias_arn" {
  description = "ARN of the alias that serves traffic (the published, SnapStart-enabled version)."
  value       = aws_lambda_alias.live.arn
}

output "proxy_endpoint" {
  description = "Endpoint of the RDS Proxy (TLS required)."
  value       = aws_db_proxy.this.endpoint
}

output "db_secret_arn" {
  description = "ARN of the Secrets Manager secret with the database credentials."
  value       = aws_secretsmanager_secret.db.arn
}

output "webhook_urls" {
  description = "The URL to give each webhook provider, by source name."
  value       = local.webhook_urls
}

output "webhook_secret_arns" {
  description = "The Secrets Manager secret each webhook source's signing secret is read from, by source name."
  value       = local.webhook_secret_arns
}
