# The function: target/function.zip (JVM), its handler dev.exactly.lambda.FunctionHandler (Quarkus'
# stream handler), SnapStart on published versions, invoked through the "live" alias.
# Configuration reaches it as environment variables that map to the application's config keys (a
# test checks each one); secrets only as Secrets Manager references (secrets.tf), read at start-up.

locals {
  handler = "dev.exactly.lambda.FunctionHandler::handleRequest"

  api_key_sha256 = concat([sha256(random_password.api_key.result)], var.extra_api_key_sha256)
}

# The API key handed to the operator (terraform output -raw api_key). The function only ever sees
# its SHA-256 digest. (The maintenance schedule needs no key: schedule.tf.)
resource "random_password" "api_key" {
  length  = 43
  special = false
}

resource "aws_cloudwatch_log_group" "function" {
  name              = "/aws/lambda/${var.name}"
  retention_in_days = var.log_retention_days
}

resource "aws_lambda_function" "this" {
  function_name    = var.name
  description      = "Exactly: exact deduplication for event ingestion"
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
    security_group_ids = var.lambda_security_group_ids
  }

  environment {
    variables = merge({
      # Read by the JVM (not a config key): tiered compilation stops at C1, which AWS recommends
      # for a quick cold start ("Customize Java runtime startup behavior for Lambda functions";
      # the java17/java21 runtimes default to it, so this states it); the first metaspace
      # threshold at 64 MB instead of about 21 MB, so the start (about 33 MB of class metadata
      # by the first answer) runs no full collection for it (BENCHMARKS.md finding 23).
      # LambdaRuntimeIT and bench/lambda-cold-start start the function with this same value.
      JAVA_TOOL_OPTIONS               = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:MetaspaceSize=64m"
      QUARKUS_PROFILE                 = "lambda"
      QUARKUS_DATASOURCE_REACTIVE_URL = "postgresql://${aws_db_proxy.this.endpoint}:5432/${var.db_name}?sslmode=require"
      EXACTLY_AUTH_API_KEY_SHA256     = join(",", local.api_key_sha256)
      EXACTLY_SECRETS_PROPERTIES      = jsonencode(local.secret_properties)
      # not read by the function: new secret versions force a new function version (secrets.tf)
      EXACTLY_SECRETS_VERSION = join(",", local.secret_version_ids)
    }, local.webhook_environment)
  }

  # The application writes one JSON object per line (QUARKUS_PROFILE=lambda turns on Quarkus' JSON
  # console format), so Lambda keeps each as it is and filters application logs by its "level".
  logging_config {
    log_format = "JSON"
    log_group  = aws_cloudwatch_log_group.function.name
  }

  depends_on = [
    aws_iam_role_policy.function,
    aws_db_proxy_target.this,
    aws_secretsmanager_secret_version.db,
    aws_secretsmanager_secret_version.webhook,
  ]
}

resource "aws_lambda_alias" "live" {
  name             = "live"
  description      = "The published version that serves traffic (SnapStart applies to published versions)."
  function_name    = aws_lambda_function.this.function_name
  function_version = aws_lambda_function.this.version
}
