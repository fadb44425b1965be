# The functions, both from target/function.zip (JVM) with the handler
# dev.exactly.lambda.FunctionHandler (Quarkus' stream handler):
# - "<name>": the HTTP API's function, SnapStart on published versions, served through the "live"
#   alias; its timeout sits between the request deadline and API Gateway's (variables.tf);
# - "<name>-maintenance" (maintenance.tf): the scheduled maintenance job, with a longer timeout.
# Their environment is a fixed handful of variables; everything else (webhook sources, the request
# deadline, secret ARNs) is in the settings document read from Secrets Manager at start (secrets.tf).

locals {
  handler = "dev.exactly.lambda.FunctionHandler::handleRequest"

  environment = {
    # Read by the JVM (not a config key): tiered compilation stops at C1, which AWS recommends
    # for a quick cold start ("Customize Java runtime startup behavior for Lambda functions";
    # the java17/java21 runtimes default to it, so this states it); the first metaspace
    # threshold at 64 MB instead of about 21 MB, so the start (about 33 MB of class metadata
    # by the first answer) runs no full collection for it.
    # LambdaRuntimeIT and bench/lambda-cold-start start the function with this same value.
    JAVA_TOOL_OPTIONS               = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:MetaspaceSize=64m"
    QUARKUS_PROFILE                 = "lambda"
    QUARKUS_DATASOURCE_REACTIVE_URL = "postgresql://${aws_db_proxy.this.endpoint}:5432/${var.db_name}?sslmode=require"
    EXACTLY_AUTH_API_KEY_SHA256     = join(",", var.api_key_sha256)
    EXACTLY_SECRETS_DOCUMENT        = aws_secretsmanager_secret.settings.arn
    # not read by the function: a new settings document (new secret versions, changed sources)
    # forces a new function version (secrets.tf)
    EXACTLY_SECRETS_VERSION = aws_secretsmanager_secret_version.settings.version_id
  }

  # Lambda's limit: 4 KB for all environment variables together (Lambda quotas, "Function
  # configuration, deployment, and execution"). Counted as the names and values' characters.
  environment_bytes = sum([for k, v in local.environment : length(k) + length(v)])
}

resource "aws_cloudwatch_log_group" "function" {
  name              = "/aws/lambda/${var.name}"
  retention_in_days = var.log_retention_days
}

resource "aws_lambda_function" "this" {
  function_name    = var.name
  description      = "Exactly: exact deduplication for event ingestion (HTTP API)"
  role             = aws_iam_role.function.arn
  runtime          = var.lambda_runtime
  handler          = local.handler
  filename         = var.function_zip
  source_code_hash = filebase64sha256(var.function_zip)
  memory_size      = var.lambda_memory_mb
  timeout          = var.lambda_timeout_seconds
  architectures    = ["x86_64"]
  publish          = true

  reserved_concurrent_executions = var.lambda_reserved_concurrency

  snap_start {
    apply_on = "PublishedVersions"
  }

  vpc_config {
    subnet_ids         = var.subnet_ids
    security_group_ids = local.lambda_security_group_ids
  }

  environment {
    variables = local.environment
  }

  # The application writes one JSON object per line (QUARKUS_PROFILE=lambda turns on Quarkus' JSON
  # console format), so Lambda keeps each as it is and filters application logs by its "level".
  logging_config {
    log_format = "JSON"
    log_group  = aws_cloudwatch_log_group.function.name
  }

  lifecycle {
    precondition {
      condition     = local.environment_bytes <= 4096
      error_message = "The function's environment would pass Lambda's 4 KB limit (${local.environment_bytes} bytes): put further settings in app_settings, which go into the settings document."
    }
  }

  depends_on = [
    aws_iam_role_policy.function,
    aws_db_proxy_target.this,
    aws_secretsmanager_secret_version.settings,
    aws_secretsmanager_secret_version.webhook,
  ]
}

resource "aws_lambda_alias" "live" {
  name             = "live"
  description      = "The published version that serves traffic (SnapStart applies to published versions)."
  function_name    = aws_lambda_function.this.function_name
  function_version = aws_lambda_function.this.version
}
