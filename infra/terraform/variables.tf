variable "region" {
  description = "AWS region to deploy into, e.g. eu-west-1."
  type        = string
}

variable "name" {
  description = "Name prefix of every resource (function, API, database, proxy, secret)."
  type        = string
  default     = "exactly"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,40}$", var.name))
    error_message = "name: lowercase letters, digits and '-', starting with a letter, at most 41 characters."
  }
}

variable "tags" {
  description = "Tags put on every resource."
  type        = map(string)
  default     = {}
}

# --- network: an existing VPC ------------------------------------------------------------------

variable "subnet_ids" {
  description = "Private subnet ids (at least two availability zones) for the function, the RDS Proxy and the database."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) >= 2
    error_message = "subnet_ids: RDS needs subnets in at least two availability zones."
  }
}

variable "lambda_security_group_ids" {
  description = "Security groups of the function. They must be allowed to reach the proxy's security groups on TCP 5432."
  type        = list(string)
}

variable "database_security_group_ids" {
  description = "Security groups of the RDS Proxy and the database: allow TCP 5432 from the function's groups and from themselves."
  type        = list(string)
}

# --- function ----------------------------------------------------------------------------------

variable "function_zip" {
  description = "Path of the function package built by `mvn -B -Plambda package`."
  type        = string
  default     = "../../target/function.zip"
}

variable "lambda_runtime" {
  description = "Java runtime of the function (SnapStart needs a managed Java runtime)."
  type        = string
  default     = "java21"

  validation {
    condition     = contains(["java17", "java21", "java25"], var.lambda_runtime)
    error_message = "lambda_runtime: java17, java21 or java25."
  }
}

variable "lambda_memory_mb" {
  description = "Memory of the function in MB (CPU grows with it)."
  type        = number
  default     = 1024

  validation {
    condition     = var.lambda_memory_mb >= 512
    error_message = "lambda_memory_mb: at least 512."
  }
}

variable "lambda_timeout_seconds" {
  description = "Timeout of one invocation in seconds. The HTTP API waits at most 30 s."
  type        = number
  default     = 30
}

variable "lambda_reserved_concurrency" {
  description = "Most concurrent instances (each holds up to 2 proxy connections); -1 for no reservation."
  type        = number
  default     = -1
}

variable "log_retention_days" {
  description = "How long the function's CloudWatch logs are kept, in days."
  type        = number
  default     = 30
}

# --- database ----------------------------------------------------------------------------------

variable "postgres_version" {
  description = "PostgreSQL major version of the RDS instance: 16 or 17."
  type        = string
  default     = "17"

  validation {
    condition     = contains(["16", "17"], split(".", var.postgres_version)[0])
    error_message = "postgres_version: 16 or 17 (optionally with a minor version, e.g. 17.5)."
  }
}

variable "db_instance_class" {
  description = "RDS instance class."
  type        = string
  default     = "db.t4g.small"
}

variable "db_allocated_storage_gb" {
  description = "Storage of the database in GB (gp3)."
  type        = number
  default     = 20
}

variable "db_name" {
  description = "Name of the database the service uses."
  type        = string
  default     = "exactly"
}

variable "db_username" {
  description = "Database user of the service (its password is generated and kept in Secrets Manager)."
  type        = string
  default     = "exactly"
}

variable "db_deletion_protection" {
  description = "Refuse to delete the database (turn off before `terraform destroy`)."
  type        = bool
  default     = true
}

variable "db_skip_final_snapshot" {
  description = "Delete the database without a final snapshot on destroy."
  type        = bool
  default     = false
}

variable "proxy_idle_client_timeout_seconds" {
  description = "Seconds the RDS Proxy keeps an idle client connection. Must stay above the function's pool max-lifetime (600 s, %lambda in application.properties)."
  type        = number
  default     = 1800
}

# --- API keys and maintenance ------------------------------------------------------------------

variable "extra_api_key_sha256" {
  description = "Hex SHA-256 digests of further API keys to accept (printf %s \"$KEY\" | sha256sum), e.g. for rotation. One key is generated: `terraform output -raw api_key`."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for h in var.extra_api_key_sha256 : can(regex("^[0-9a-fA-F]{64}$", h))])
    error_message = "extra_api_key_sha256: each entry is a hex SHA-256 digest (64 hex digits), not a key."
  }
}

variable "maintenance_schedule" {
  description = "EventBridge schedule expression of the maintenance job (retention, hash purge)."
  type        = string
  default     = "rate(5 minutes)"
}

# --- webhooks ----------------------------------------------------------------------------------

variable "webhook_sources" {
  description = <<-EOT
    Webhook sources, by name (the {source} of POST /webhooks/{source}; lowercase letters and digits).
    Each field is one exactly.webhooks.sources.<name>.* key (README, "Configuring sources"):
    preset: github, stripe, standard-webhooks, shopify, slack, gitlab, twitch, square, linear,
    paddle or generic. Optional: queue (default webhooks.<name>), partition (a fixed partition
    name) or partition_header / partition_pointer; key_header, key_pointer or key_content_hash
    (with key_include / key_exclude) replace the preset's deduplication key; window_seconds (the
    queue's deduplication window; default: the preset's, which covers the provider's documented
    retry horizon); signature (another scheme: a preset's, hmac-sha256 or none) with
    signature_header, signature_prefix and signature_encoding (hex or base64) for hmac-sha256;
    tolerance_seconds; notification_url (square: the URL as entered in the Square subscription,
    default this source's URL from webhook_urls); headers (the request headers stored with each
    message); max_body_bytes (at most 3112960, what always fits in a Lambda invocation, see
    README); and secret_arn: an existing Secrets Manager secret holding the signing secret as its
    whole string. Without secret_arn the module creates the secret from webhook_secrets[name].
  EOT
  type = map(object({
    preset             = string
    queue              = optional(string)
    partition          = optional(string)
    partition_header   = optional(string)
    partition_pointer  = optional(string)
    key_header         = optional(string)
    key_pointer        = optional(string)
    key_content_hash   = optional(bool)
    key_include        = optional(list(string))
    key_exclude        = optional(list(string))
    window_seconds     = optional(number)
    signature          = optional(string)
    signature_header   = optional(string)
    signature_prefix   = optional(string)
    signature_encoding = optional(string)
    tolerance_seconds  = optional(number)
    notification_url   = optional(string)
    headers            = optional(list(string))
    max_body_bytes     = optional(number)
    secret_arn         = optional(string)
  }))
  default = {}

  validation {
    condition     = alltrue([for name, s in var.webhook_sources : can(regex("^[a-z][a-z0-9]{0,62}$", name))])
    error_message = "webhook_sources: each name is lowercase letters and digits, starting with a letter (it becomes part of environment variable names)."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : contains(["github", "stripe", "standard-webhooks", "shopify", "slack", "gitlab", "twitch", "square", "linear", "paddle", "generic"], s.preset)])
    error_message = "webhook_sources: preset is github, stripe, standard-webhooks, shopify, slack, gitlab, twitch, square, linear, paddle or generic."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.signature == null || contains(["github", "stripe", "standard-webhooks", "shopify", "slack", "gitlab", "twitch", "square", "linear", "paddle", "hmac-sha256", "none"], coalesce(s.signature, "none"))])
    error_message = "webhook_sources: signature is a preset's scheme (github, stripe, standard-webhooks, shopify, slack, gitlab, twitch, square, linear, paddle), hmac-sha256 or none."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.preset != "generic" || s.signature != null])
    error_message = "webhook_sources: a generic source names its signature scheme (signature = \"hmac-sha256\" with signature_header, a preset's scheme, or \"none\")."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.preset != "generic" || s.key_header != null || s.key_pointer != null || coalesce(s.key_content_hash, false)])
    error_message = "webhook_sources: a generic source names its deduplication key: key_header, key_pointer or key_content_hash = true."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : length([for k in [s.key_header, s.key_pointer, coalesce(s.key_content_hash, false) ? "hash" : null] : k if k != null]) <= 1])
    error_message = "webhook_sources: set at most one of key_header, key_pointer and key_content_hash."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : coalesce(s.signature, "none") != "hmac-sha256" || s.signature_header != null])
    error_message = "webhook_sources: signature = \"hmac-sha256\" needs signature_header (the header carrying the digest)."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.signature_encoding == null || contains(["hex", "base64"], coalesce(s.signature_encoding, "hex"))])
    error_message = "webhook_sources: signature_encoding is hex or base64."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.max_body_bytes == null || (coalesce(s.max_body_bytes, 1) >= 1 && coalesce(s.max_body_bytes, 1) <= 3112960)])
    error_message = "webhook_sources: max_body_bytes is between 1 and 3112960, the largest body that always fits in a synchronous Lambda invocation (6 MB) once API Gateway has put it into the event (README, Deploy)."
  }

  # What the function would refuse at start-up (the init error would name the key), refused by plan.
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : alltrue([for n in [s.queue, s.partition] : n == null || can(regex("^[A-Za-z0-9._:-]{1,255}$", n)) && !contains([".", ".."], coalesce(n, "-"))])])
    error_message = "webhook_sources: queue and partition are 1 to 255 characters of letters, digits and . _ : -, other than . and .. (the names the function accepts)."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : alltrue([for p in [s.key_pointer, s.partition_pointer] : p == null || startswith(coalesce(p, "/"), "/")])])
    error_message = "webhook_sources: key_pointer and partition_pointer are JSON Pointers (RFC 6901): they start with '/', e.g. \"/id\"."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.secret_arn == null || can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:.+$", coalesce(s.secret_arn, "-")))])
    error_message = "webhook_sources: secret_arn is the ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<suffix>), not its name: the function's role is granted exactly these ARNs."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.window_seconds == null || coalesce(s.window_seconds, 0) >= 0])
    error_message = "webhook_sources: window_seconds is 0 (probe off) or more."
  }

  # Cross-variable validation (Terraform 1.9 or newer). A source that checks a signature (every
  # preset, unless signature = "none") cannot work without its secret: the function would keep it
  # disabled (404), so plan refuses it here instead of failing on a missing map entry.
  validation {
    condition     = length([for name, s in var.webhook_sources : name if coalesce(s.signature, s.preset == "generic" ? "none" : s.preset) != "none" && s.secret_arn == null && !contains(nonsensitive(keys(var.webhook_secrets)), name)]) == 0
    error_message = "webhook_sources: no signing secret for ${join(", ", [for name, s in var.webhook_sources : name if coalesce(s.signature, s.preset == "generic" ? "none" : s.preset) != "none" && s.secret_arn == null && !contains(nonsensitive(keys(var.webhook_secrets)), name)])}. A source that checks a signature (any preset, unless signature = \"none\") needs secret_arn, or an entry of the same name in webhook_secrets (TF_VAR_webhook_secrets='{\"<name>\":\"<secret>\"}')."
  }
}

variable "secrets_revision" {
  description = "Change it (any new text, e.g. a date) after changing a secret you reference with secret_arn: the function reads its secrets only when a version starts, and this makes apply publish a new version. Secrets the module creates need no such step (their version ids do it)."
  type        = string
  default     = ""
}

variable "webhook_secrets" {
  description = "Signing secrets of the webhook sources without secret_arn, by source name (every such source that checks a signature needs one). Terraform stores each in a Secrets Manager secret it creates; the function reads it there at start-up. Set it with TF_VAR_webhook_secrets rather than in a file."
  type        = map(string)
  default     = {}
  sensitive   = true

  # An empty secret would leave its source off (404): refused here, naming no value.
  validation {
    condition     = nonsensitive(alltrue([for v in values(var.webhook_secrets) : trimspace(v) != ""]))
    error_message = "webhook_secrets: a signing secret is empty (an empty secret leaves its source disabled)."
  }
}

variable "kms_key_arn" {
  description = "ARN of the customer-managed KMS key that encrypts secrets you reference with secret_arn, if any: the function's role gets kms:Decrypt on it, through Secrets Manager only. Secrets the module creates use the AWS managed key and need none."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/.+$", coalesce(var.kms_key_arn, "-")))
    error_message = "kms_key_arn: the ARN of a KMS key (arn:aws:kms:<region>:<account>:key/<key id>), not an alias."
  }
}
