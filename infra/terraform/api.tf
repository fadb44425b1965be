# API Gateway HTTP API: every route ($default) goes to the "live" alias with payload format 2.0.

locals {
  # The $default stage is served at the API's endpoint itself. Its invoke_url ends in "/", so
  # "$URL/api/v1/push" would have two; the endpoint has none. The function's environment may use
  # these (a square source's notification URL): the API does not depend on the function.
  api_url      = aws_apigatewayv2_api.this.api_endpoint
  webhook_urls = { for name in keys(var.webhook_sources) : name => format("%s/webhooks/%s", local.api_url, name) }
}

resource "aws_apigatewayv2_api" "this" {
  name          = var.name
  protocol_type = "HTTP"
  description   = "Exactly HTTP API"
}

resource "aws_apigatewayv2_integration" "function" {
  api_id                 = aws_apigatewayv2_api.this.id
  integration_type       = "AWS_PROXY"
  integration_method     = "POST"
  integration_uri        = aws_lambda_alias.live.invoke_arn
  payload_format_version = "2.0"
  timeout_milliseconds   = 30000
}

resource "aws_apigatewayv2_route" "default" {
  api_id    = aws_apigatewayv2_api.this.id
  route_key = "$default"
  target    = "integrations/${aws_apigatewayv2_integration.function.id}"
}

resource "aws_apigatewayv2_stage" "default" {
  api_id      = aws_apigatewayv2_api.this.id
  name        = "$default"
  auto_deploy = true
}

resource "aws_lambda_permission" "api" {
  statement_id  = "AllowHttpApi"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this.function_name
  qualifier     = aws_lambda_alias.live.name
  principal     = "apigateway.amazonaws.com"
  source_arn    = "${aws_apigatewayv2_api.this.execution_arn}/*/*"
}
