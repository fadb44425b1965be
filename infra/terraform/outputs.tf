output "api_url" {
  description = "Base URL of the HTTP API, e.g. $URL/api/v1/push."
  value       = aws_apigatewayv2_stage.default.invoke_url
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
