# What the functions read from Secrets Manager.
#
# At start-up (before a SnapStart snapshot), through the settings document (EXACTLY_SECRETS_DOCUMENT,
# aws_secretsmanager_secret.settings): a JSON object whose "properties" are plain application
# settings (the webhook sources' and destinations' options, the request deadline, the database
# secrets' ARNs, var.app_settings) and whose "secrets" map config keys to
# "<secret ARN>[#<JSON member>]" (each webhook source's and destination's signing secret). Keeping them there rather than in the function's environment
# keeps that environment a fixed handful of variables, far below Lambda's 4 KB for all of them,
# however many sources there are.
#
# When a connection is opened: the application role's credentials (aws_secretsmanager_secret.app,
# database.tf). When POST /api/v1/admin/migrate runs: the master user's (RDS's own secret).
#
# The functions' role may read exactly these secrets (iam.tf).

locals {
  # A source that checks a signature (every preset, unless signature = "none") has a secret: its
  # secret_arn, or one created here (variables.tf refuses a source with neither).
  signed_webhook_sources = {
    for name, s in var.webhook_sources : name => s
    if coalesce(s.signature, s.preset == "generic" ? "none" : s.preset) != "none"
  }

  created_webhook_secrets = { for name, s in local.signed_webhook_sources : name => s if s.secret_arn == null }

  webhook_secret_arns = {
    for name, s in local.signed_webhook_sources :
    name => s.secret_arn != null ? s.secret_arn : aws_secretsmanager_secret.webhook[name].arn
  }

  # Every option of each source: exactly.webhooks.sources.<name>.<option> (lists comma-separated).
  # A square source's notification URL defaults to its own webhook URL, the one to enter in the
  # Square subscription.
  webhook_properties = merge([
    for name, s in var.webhook_sources : {
      for option, value in {
        "preset"             = s.preset
        "queue"              = s.queue
        "partition.name"     = s.partition
        "partition.header"   = s.partition_header
        "partition.pointer"  = s.partition_pointer
        "key.header"         = s.key_header
        "key.pointer"        = s.key_pointer
        "key.content-hash"   = s.key_content_hash == null ? null : tostring(s.key_content_hash)
        "key.include"        = s.key_include == null ? null : join(",", s.key_include)
        "key.exclude"        = s.key_exclude == null ? null : join(",", s.key_exclude)
        "window-seconds"     = s.window_seconds == null ? null : tostring(s.window_seconds)
        "signature"          = s.signature
        "signature-header"   = s.signature_header
        "signature-prefix"   = s.signature_prefix
        "signature-encoding" = s.signature_encoding
        "tolerance-seconds"  = s.tolerance_seconds == null ? null : tostring(s.tolerance_seconds)
        "notification-url"   = s.notification_url != null ? s.notification_url : (coalesce(s.signature, s.preset) == "square" ? local.webhook_urls[name] : null)
        "headers"            = s.headers == null ? null : join(",", s.headers)
        "max-body-bytes"     = s.max_body_bytes == null ? null : tostring(s.max_body_bytes)
      } : format("exactly.webhooks.sources.%s.%s", name, option) => value if value != null
    }
  ]...)

  settings_properties = merge(
    var.app_settings,
    local.webhook_properties,
    local.destination_properties,
    local.delivery_properties,
    {
      "exactly.request.deadline-ms"        = tostring(var.request_deadline_ms)
      "exactly.secrets.database"           = aws_secretsmanager_secret.app.arn
      "exactly.secrets.database-admin"     = local.master_secret_arn
      "exactly.secrets.database-admin-url" = "postgresql://${aws_db_instance.this.address}:${aws_db_instance.this.port}/${var.db_name}?sslmode=require"
      "exactly.secrets.database-app-user"  = var.db_app_username
    },
  )

  settings_secrets = merge(
    { for name, arn in local.webhook_secret_arns : format("exactly.webhooks.sources.%s.secret", name) => arn },
    local.destination_secrets, # delivery.tf
  )

  # The function reads its secrets once, at start-up, so a changed secret reaches it only in a new
  # published version. The version ids (never the values) of the secrets this module writes, plus
  # var.secrets_revision for secrets referenced by secret_arn, are part of the settings document:
  # a new secret version changes the document, whose new version id changes the function's
  # environment (EXACTLY_SECRETS_VERSION), so apply publishes a new version and moves "live".
  secret_version_ids = concat(
    [for name in sort(keys(local.created_webhook_secrets)) : aws_secretsmanager_secret_version.webhook[name].version_id],
    var.secrets_revision == "" ? [] : [var.secrets_revision],
  )

  function_secret_arns = concat(
    [aws_secretsmanager_secret.settings.arn, aws_secretsmanager_secret.app.arn, local.master_secret_arn],
    values(local.webhook_secret_arns),
    values(local.destination_secrets),
  )
}

resource "aws_secretsmanager_secret" "webhook" {
  for_each = local.created_webhook_secrets

  name_prefix             = "${var.name}-webhook-${each.key}-"
  description             = "Signing secret of the Exactly webhook source '${each.key}' (read by the function at start-up)."
  recovery_window_in_days = 7
}

# Write-only (Terraform 1.11): the value goes to Secrets Manager and into no state or plan file.
resource "aws_secretsmanager_secret_version" "webhook" {
  for_each = local.created_webhook_secrets

  secret_id                = aws_secretsmanager_secret.webhook[each.key].id
  secret_string_wo         = var.webhook_secrets[each.key]
  secret_string_wo_version = var.webhook_secrets_version
}

# The settings document: no secret in it, only settings and the ARNs of secrets. Kept in Secrets
# Manager because the function reads it there already, with no further network path or grant.
resource "aws_secretsmanager_secret" "settings" {
  name_prefix             = "${var.name}-settings-"
  description             = "Settings of the Exactly functions (no secret values: settings and secret ARNs), read at start-up."
  recovery_window_in_days = 7
}

resource "aws_secretsmanager_secret_version" "settings" {
  secret_id = aws_secretsmanager_secret.settings.id
  secret_string = jsonencode({
    properties = local.settings_properties
    secrets    = local.settings_secrets
    revision   = local.secret_version_ids
  })
}
