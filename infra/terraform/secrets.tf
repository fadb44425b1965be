# What the function reads from Secrets Manager at start-up: the database credentials (database.tf)
# and each webhook source's signing secret, referenced (secret_arn) or created here from
# var.webhook_secrets. The function's environment names these secrets, never their values
# (EXACTLY_SECRETS_PROPERTIES: config key -> "<secret ARN>[#<JSON member>]"), and its role may read
# exactly these secrets (iam.tf).

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

  secret_properties = merge(
    {
      "quarkus.datasource.username" = "${aws_secretsmanager_secret.db.arn}#username"
      "quarkus.datasource.password" = "${aws_secretsmanager_secret.db.arn}#password"
    },
    { for name, arn in local.webhook_secret_arns : format("exactly.webhooks.sources.%s.secret", name) => arn },
  )

  function_secret_arns = concat([aws_secretsmanager_secret.db.arn], values(local.webhook_secret_arns))

  # The function reads its secrets once, at start-up (before the SnapStart snapshot), so a changed
  # secret reaches it only in a new published version. The version ids (never the values) of the
  # secrets this module writes, plus var.secrets_revision for secrets referenced by secret_arn,
  # go into the function's environment as EXACTLY_SECRETS_VERSION: a new secret value gives a new
  # version id, which changes the function's configuration, so apply publishes a new version and
  # moves the "live" alias to it. The function does not read the variable.
  secret_version_ids = concat(
    [aws_secretsmanager_secret_version.db.version_id],
    [for name in sort(keys(local.created_webhook_secrets)) : aws_secretsmanager_secret_version.webhook[name].version_id],
    var.secrets_revision == "" ? [] : [var.secrets_revision],
  )

  # One environment variable per set option of each source: exactly.webhooks.sources.<name>.<option>
  # as EXACTLY_WEBHOOKS_SOURCES_<NAME>_<OPTION> (lists comma-separated). A square source's
  # notification URL defaults to its own webhook URL, the one to enter in the Square subscription.
  webhook_environment = merge([
    for name, s in var.webhook_sources : {
      for option, value in {
        PRESET             = s.preset
        QUEUE              = s.queue
        PARTITION_NAME     = s.partition
        PARTITION_HEADER   = s.partition_header
        PARTITION_POINTER  = s.partition_pointer
        KEY_HEADER         = s.key_header
        KEY_POINTER        = s.key_pointer
        KEY_CONTENT_HASH   = s.key_content_hash == null ? null : tostring(s.key_content_hash)
        KEY_INCLUDE        = s.key_include == null ? null : join(",", s.key_include)
        KEY_EXCLUDE        = s.key_exclude == null ? null : join(",", s.key_exclude)
        WINDOW_SECONDS     = s.window_seconds == null ? null : tostring(s.window_seconds)
        SIGNATURE          = s.signature
        SIGNATURE_HEADER   = s.signature_header
        SIGNATURE_PREFIX   = s.signature_prefix
        SIGNATURE_ENCODING = s.signature_encoding
        TOLERANCE_SECONDS  = s.tolerance_seconds == null ? null : tostring(s.tolerance_seconds)
        NOTIFICATION_URL   = s.notification_url != null ? s.notification_url : (coalesce(s.signature, s.preset) == "square" ? local.webhook_urls[name] : null)
        HEADERS            = s.headers == null ? null : join(",", s.headers)
        MAX_BODY_BYTES     = s.max_body_bytes == null ? null : tostring(s.max_body_bytes)
      } : format("EXACTLY_WEBHOOKS_SOURCES_%s_%s", upper(name), option) => value if value != null
    }
  ]...)
}

resource "aws_secretsmanager_secret" "webhook" {
  for_each = local.created_webhook_secrets

  name_prefix             = "${var.name}-webhook-${each.key}-"
  description             = "Signing secret of the Exactly webhook source '${each.key}' (read by the function at start-up)."
  recovery_window_in_days = 7
}

resource "aws_secretsmanager_secret_version" "webhook" {
  for_each = local.created_webhook_secrets

  secret_id     = aws_secretsmanager_secret.webhook[each.key].id
  secret_string = var.webhook_secrets[each.key]
}
