# Every input of the module. docs/deploy-aws.md explains each one; what plan refuses is refused
# here, in the module's own words, before the provider or AWS sees a value.

variable "region" {
  description = "AWS region to deploy into, e.g. eu-west-1."
  type        = string

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region: an AWS region code such as eu-west-1 or us-east-1."
  }
}

# The name feeds every resource name. The tightest limits it meets (docs/deploy-aws.md, "Names"):
# IAM role name_prefix "<name>-proxy-" at most 38 characters (IAM's 64 less the 26 characters
# Terraform appends), so name <= 31; the RDS instance "<name>-db", its final snapshot and the
# proxy "<name>-proxy" follow RDS identifier rules (a letter first, letters, digits and single
# hyphens, no hyphen at the end). Lambda, API Gateway, EventBridge, SQS and CloudWatch names allow
# more than these.
variable "name" {
  description = "Name prefix of every resource (function, API, database, proxy, secrets, alarms): 2 to 31 characters of lowercase letters, digits and single hyphens, starting with a letter and not ending with a hyphen."
  type        = string
  default     = "exactly"

  validation {
    condition     = length(var.name) >= 2 && length(var.name) <= 31
    error_message = "name: 2 to 31 characters. It becomes the IAM role name prefix \"<name>-proxy-\", which IAM and Terraform allow at most 38 characters."
  }

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]*[a-z0-9]$", var.name)) && !strcontains(var.name, "--")
    error_message = "name: lowercase letters, digits and single hyphens, starting with a letter and not ending with a hyphen (RDS identifiers \"<name>-db\" and \"<name>-proxy\" refuse anything else, and upper case would be folded)."
  }
}

variable "tags" {
  description = "Tags put on every resource (the provider's default_tags)."
  type        = map(string)
  default     = {}
}

# --- network: an existing VPC ------------------------------------------------------------------

variable "vpc_id" {
  description = "The VPC of subnet_ids. Needed when create_security_groups is true (the module creates its security groups in it)."
  type        = string
  default     = null

  validation {
    condition     = var.vpc_id == null || can(regex("^vpc-[0-9a-f]{8,17}$", coalesce(var.vpc_id, "-")))
    error_message = "vpc_id: a VPC id such as vpc-0123456789abcdef0."
  }
}

variable "subnet_ids" {
  description = "Private subnet ids in at least two availability zones, for the function, the RDS Proxy and the database. They need a route to Secrets Manager: a NAT gateway, or an interface VPC endpoint for secretsmanager with private DNS."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) >= 2 && alltrue([for s in var.subnet_ids : can(regex("^subnet-[0-9a-f]{8,17}$", s))])
    error_message = "subnet_ids: at least two subnet ids (subnet-...), in different availability zones: RDS and the RDS Proxy need two."
  }
}

variable "create_security_groups" {
  description = "Create the three security groups (function, proxy, database) with the rules between them: the function reaches the proxy and the database on TCP 5432 and HTTPS (443) for Secrets Manager; the proxy reaches the database on 5432. Needs vpc_id. Set false to pass your own groups in lambda_security_group_ids and database_security_group_ids."
  type        = bool
  default     = true

  validation {
    condition     = !var.create_security_groups || var.vpc_id != null
    error_message = "create_security_groups: the module creates its security groups in vpc_id, so set vpc_id (or set create_security_groups = false and pass lambda_security_group_ids and database_security_group_ids)."
  }
}

variable "lambda_security_group_ids" {
  description = "With create_security_groups = false: the function's security groups. They must reach the proxy's and the database's groups on TCP 5432 and Secrets Manager on 443."
  type        = list(string)
  default     = []

  validation {
    condition     = var.create_security_groups || length(var.lambda_security_group_ids) > 0
    error_message = "lambda_security_group_ids: with create_security_groups = false, name the function's security groups."
  }
}

variable "database_security_group_ids" {
  description = "With create_security_groups = false: the security groups of the RDS Proxy and the database. They must allow TCP 5432 from the function's groups and from themselves."
  type        = list(string)
  default     = []

  validation {
    condition     = var.create_security_groups || length(var.database_security_group_ids) > 0
    error_message = "database_security_group_ids: with create_security_groups = false, name the security groups of the proxy and the database."
  }
}

# --- function ----------------------------------------------------------------------------------

variable "function_zip" {
  description = "Path of the function package built by `mvn -B -Plambda package`."
  type        = string
  default     = "../../target/function.zip"
}

variable "lambda_runtime" {
  description = "Java runtime of the function: java17 or java21 (managed runtimes with SnapStart that AWS provider 5.x accepts)."
  type        = string
  default     = "java21"

  validation {
    condition     = contains(["java17", "java21"], var.lambda_runtime)
    error_message = "lambda_runtime: java17 or java21 (the pinned AWS provider, 5.x, knows no later Java runtime)."
  }
}

variable "lambda_memory_mb" {
  description = "Memory of the function in MB (CPU grows with it): 512 to 10240."
  type        = number
  default     = 1024

  validation {
    condition     = var.lambda_memory_mb >= 512 && var.lambda_memory_mb <= 10240 && floor(var.lambda_memory_mb) == var.lambda_memory_mb
    error_message = "lambda_memory_mb: a whole number of MB from 512 to 10240 (Lambda's maximum)."
  }
}

# Timeouts, from the inside out: a request is answered (503 problem+json at worst) by
# request_deadline_ms; the function may run lambda_timeout_seconds; API Gateway waits
# api_integration_timeout_ms. Each must leave room for the one inside it.
variable "request_deadline_ms" {
  description = "Every HTTP request is answered within this many milliseconds (exactly.request.deadline-ms): work still running then is abandoned and answered 503 problem+json with Retry-After. It must end at least 2000 ms before lambda_timeout_seconds."
  type        = number
  default     = 25000

  validation {
    condition     = var.request_deadline_ms >= 22000 && floor(var.request_deadline_ms) == var.request_deadline_ms
    error_message = "request_deadline_ms: a whole number of milliseconds, at least 22000 (the longest long poll, 20000 ms of waitMillis, and 2000 ms for its last attempt)."
  }

  validation {
    condition     = var.request_deadline_ms + 2000 <= var.lambda_timeout_seconds * 1000
    error_message = "request_deadline_ms: must end at least 2000 ms before lambda_timeout_seconds, so the function still writes its 503 problem+json before Lambda stops it (request_deadline_ms + 2000 <= lambda_timeout_seconds * 1000)."
  }
}

variable "lambda_timeout_seconds" {
  description = "Timeout of one HTTP invocation in seconds. It must not pass api_integration_timeout_ms: API Gateway would give up first and answer its own bare 503."
  type        = number
  default     = 28

  validation {
    condition     = var.lambda_timeout_seconds >= 3 && floor(var.lambda_timeout_seconds) == var.lambda_timeout_seconds
    error_message = "lambda_timeout_seconds: a whole number of seconds, at least 3."
  }

  validation {
    condition     = var.lambda_timeout_seconds * 1000 <= var.api_integration_timeout_ms
    error_message = "lambda_timeout_seconds: at most api_integration_timeout_ms (the HTTP API stops waiting then and answers its own 503 without a body the client can read)."
  }
}

variable "api_integration_timeout_ms" {
  description = "How long the HTTP API waits for the function, in milliseconds: 50 to 30000 (API Gateway's maximum for HTTP APIs)."
  type        = number
  default     = 30000

  validation {
    condition     = var.api_integration_timeout_ms >= 50 && var.api_integration_timeout_ms <= 30000
    error_message = "api_integration_timeout_ms: 50 to 30000 (an HTTP API integration waits at most 30 seconds)."
  }
}

variable "lambda_reserved_concurrency" {
  description = "Most instances of the HTTP function at once (reserved concurrency). Each holds up to 2 database connections through the proxy, so 2 x this + 2 (the maintenance function) must fit in the proxy's share of db_max_connections (plan checks it). -1 reserves nothing for this function or the maintenance one and leaves concurrency unbounded: only for accounts that cannot reserve (see docs/deploy-aws.md)."
  type        = number
  default     = 40

  validation {
    condition     = var.lambda_reserved_concurrency == -1 || (var.lambda_reserved_concurrency >= 1 && floor(var.lambda_reserved_concurrency) == var.lambda_reserved_concurrency)
    error_message = "lambda_reserved_concurrency: a whole number of at least 1, or -1 for no reservation (0 would stop the function from ever running)."
  }

  validation {
    condition     = var.lambda_reserved_concurrency == -1 || 2 * var.lambda_reserved_concurrency + 2 <= floor(var.db_max_connections * var.proxy_max_connections_percent / 100)
    error_message = "lambda_reserved_concurrency: too many instances for the database. Each holds up to 2 connections and the maintenance function 2, so 2 x lambda_reserved_concurrency + 2 must not pass db_max_connections x proxy_max_connections_percent / 100 (the proxy's connections); lower it, or raise db_max_connections (with an instance class that has the memory)."
  }
}

variable "maintenance_timeout_seconds" {
  description = "Timeout of the maintenance function (retention, transaction-hash purge) in seconds: it is not behind API Gateway, so it may run longer than an HTTP request, up to Lambda's 900."
  type        = number
  default     = 300

  validation {
    condition     = var.maintenance_timeout_seconds >= 10 && var.maintenance_timeout_seconds <= 900 && floor(var.maintenance_timeout_seconds) == var.maintenance_timeout_seconds
    error_message = "maintenance_timeout_seconds: a whole number of seconds from 10 to 900 (Lambda's maximum)."
  }
}

variable "log_retention_days" {
  description = "How long the functions' and the API's CloudWatch logs are kept, in days (a value CloudWatch Logs offers)."
  type        = number
  default     = 30

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days: one of the retention periods CloudWatch Logs offers: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653."
  }
}

variable "app_settings" {
  description = "Further application settings, config key to value (e.g. {\"exactly.tasks.max-body-bytes\" = \"1048576\"}). They go into the settings document the function reads from Secrets Manager at start, not into its environment (Lambda's 4 KB limit). Never put a secret here."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for k in keys(var.app_settings) : can(regex("^(exactly|quarkus)\\.[a-z0-9.\"-]+$", k))])
    error_message = "app_settings: each key is an application config key, e.g. exactly.tasks.max-body-bytes."
  }
}

# --- database ----------------------------------------------------------------------------------

variable "postgres_version" {
  description = "PostgreSQL version of the RDS instance: 16 or 17, optionally with a minor version (17.5)."
  type        = string
  default     = "17"

  validation {
    condition     = can(regex("^(16|17)(\\.[0-9]+)?$", var.postgres_version))
    error_message = "postgres_version: 16 or 17, optionally with a minor version, e.g. 17.5."
  }
}

variable "db_instance_class" {
  description = "RDS instance class, e.g. db.t4g.small. Its memory bounds db_max_connections."
  type        = string
  default     = "db.t4g.small"

  validation {
    condition     = can(regex("^db\\.[a-z0-9-]+\\.[a-z0-9]+$", var.db_instance_class))
    error_message = "db_instance_class: an RDS instance class such as db.t4g.small or db.m7g.large."
  }
}

variable "db_max_connections" {
  description = "max_connections of the database (set in the module's parameter group). RDS's default for an instance is about its memory / 9531392 bytes (db.t4g.small: about 200); a value above what the memory allows stops the instance from starting. Plan checks lambda_reserved_concurrency against it. It is applied at the next reboot (pending-reboot): after raising it, reboot the instance (aws rds reboot-db-instance --db-instance-identifier <name>-db) before raising lambda_reserved_concurrency in a second apply."
  type        = number
  default     = 100

  validation {
    condition     = var.db_max_connections >= 20 && var.db_max_connections <= 5000 && floor(var.db_max_connections) == var.db_max_connections
    error_message = "db_max_connections: a whole number from 20 to 5000."
  }
}

variable "proxy_max_connections_percent" {
  description = "The share of db_max_connections the RDS Proxy may open, in percent. The rest stays for the migrate step's direct connection and RDS's reserved superuser connections."
  type        = number
  default     = 90

  validation {
    condition     = var.proxy_max_connections_percent >= 10 && var.proxy_max_connections_percent <= 100
    error_message = "proxy_max_connections_percent: 10 to 100."
  }

  validation {
    condition     = floor(var.db_max_connections * var.proxy_max_connections_percent / 100) + 7 <= var.db_max_connections
    error_message = "proxy_max_connections_percent: leave at least 7 of db_max_connections outside the proxy: 2 for the migrate step's direct connection and 5 RDS reserves for superusers."
  }
}

variable "db_allocated_storage_gb" {
  description = "Storage of the database in GB (gp3): 20 to 65536."
  type        = number
  default     = 20

  validation {
    condition     = var.db_allocated_storage_gb >= 20 && var.db_allocated_storage_gb <= 65536
    error_message = "db_allocated_storage_gb: 20 to 65536 (gp3 on RDS for PostgreSQL)."
  }
}

variable "db_max_allocated_storage_gb" {
  description = "Upper bound of RDS storage autoscaling in GB; 0 turns autoscaling off."
  type        = number
  default     = 100

  validation {
    condition     = var.db_max_allocated_storage_gb == 0 || var.db_max_allocated_storage_gb >= var.db_allocated_storage_gb
    error_message = "db_max_allocated_storage_gb: 0 (no autoscaling) or at least db_allocated_storage_gb."
  }
}

variable "db_multi_az" {
  description = "Run the database as a Multi-AZ instance (a standby in another zone, automatic failover; about twice the cost)."
  type        = bool
  default     = false
}

variable "db_backup_retention_days" {
  description = "Days of automated backups (point-in-time recovery): 1 to 35."
  type        = number
  default     = 7

  validation {
    condition     = var.db_backup_retention_days >= 1 && var.db_backup_retention_days <= 35
    error_message = "db_backup_retention_days: 1 to 35."
  }
}

variable "db_name" {
  description = "Name of the database the service uses: a letter, then letters, digits or underscores, at most 63 characters."
  type        = string
  default     = "exactly"

  validation {
    condition     = can(regex("^[A-Za-z][A-Za-z0-9_]{0,62}$", var.db_name)) && !contains(["postgres", "template0", "template1", "rdsadmin"], lower(var.db_name))
    error_message = "db_name: a letter, then letters, digits or underscores, at most 63 characters, and not a database RDS keeps (postgres, template0, template1, rdsadmin); RDS refuses a hyphen."
  }
}

variable "db_master_username" {
  description = "The RDS master user: the migrate step connects as it (its password is made and rotated by RDS in Secrets Manager). The function's requests connect as db_app_username."
  type        = string
  default     = "exactly_admin"

  validation {
    condition     = can(regex("^[a-z][a-z0-9_]{0,62}$", var.db_master_username)) && !contains(["postgres", "rdsadmin", "admin", "rdsrepladmin", "public"], var.db_master_username)
    error_message = "db_master_username: a lowercase letter, then lowercase letters, digits or underscores, at most 63 characters, and not a name RDS reserves (postgres, rdsadmin, admin, rdsrepladmin, public)."
  }
}

variable "db_app_username" {
  description = "The role the function's requests use: made by the migrate step with data rights only (DML on the tables, EXECUTE on the functions of the schema), its password written by that step into a secret the module creates."
  type        = string
  default     = "exactly_app"

  validation {
    condition     = can(regex("^[a-z][a-z0-9_]{0,62}$", var.db_app_username)) && var.db_app_username != var.db_master_username
    error_message = "db_app_username: a lowercase letter, then lowercase letters, digits or underscores, at most 63 characters, other than db_master_username."
  }
}

variable "db_kms_key_arn" {
  description = "Customer-managed KMS key for the database storage and the master user's secret; null uses the AWS managed keys."
  type        = string
  default     = null

  validation {
    condition     = var.db_kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/.+$", coalesce(var.db_kms_key_arn, "-")))
    error_message = "db_kms_key_arn: the ARN of a KMS key (arn:aws:kms:<region>:<account>:key/<key id>), not an alias."
  }
}

variable "db_deletion_protection" {
  description = "Refuse to delete the database (set false and apply before `terraform destroy`)."
  type        = bool
  default     = true
}

variable "db_skip_final_snapshot" {
  description = "Delete the database without a final snapshot on destroy. Otherwise the snapshot is named <name>-db-final-<time the instance was created>, which does not collide with an earlier destroy's."
  type        = bool
  default     = false
}

variable "proxy_idle_client_timeout_seconds" {
  description = "Seconds the RDS Proxy keeps an idle client connection. Must stay above the function's pool max-lifetime (600 s, %lambda in application.properties)."
  type        = number
  default     = 1800

  validation {
    condition     = var.proxy_idle_client_timeout_seconds > 600 && var.proxy_idle_client_timeout_seconds <= 28800
    error_message = "proxy_idle_client_timeout_seconds: more than 600 (the function's connections live at most 600 s) and at most 28800 (RDS Proxy's maximum)."
  }
}

# --- API ---------------------------------------------------------------------------------------

variable "api_key_sha256" {
  description = "Hex SHA-256 digests of the API keys the service accepts (printf %s \"$KEY\" | sha256sum). Make a key with `openssl rand -base64 32` and keep it where you keep secrets; the module and its state never see it. Two entries while you rotate."
  type        = list(string)

  validation {
    condition     = length(var.api_key_sha256) >= 1 && length(var.api_key_sha256) <= 10
    error_message = "api_key_sha256: 1 to 10 digests (one per key you accept)."
  }

  validation {
    condition     = alltrue([for h in var.api_key_sha256 : can(regex("^[0-9a-fA-F]{64}$", h))])
    error_message = "api_key_sha256: each entry is a hex SHA-256 digest (64 hex digits) of a key, not the key itself."
  }

  # The example's placeholder, and the digest of an empty string (what `printf %s "$KEY" |
  # sha256sum` prints when KEY is unset): a service that accepts neither key answers 401 to all.
  validation {
    condition     = alltrue([for h in var.api_key_sha256 : !contains(["0000000000000000000000000000000000000000000000000000000000000000", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"], lower(h))])
    error_message = "api_key_sha256: put the SHA-256 of your own API key here (printf %s \"$KEY\" | sha256sum | cut -d' ' -f1), not the example's placeholder of zeros nor the digest of an empty string (KEY was unset when it was computed): the service would answer 401 to every request, the migrate call included."
  }
}

variable "api_throttling_rate_limit" {
  description = "Steady-state requests per second the HTTP API's stage lets through (default route throttling); more get API Gateway's 429."
  type        = number
  default     = 200

  validation {
    condition     = var.api_throttling_rate_limit > 0
    error_message = "api_throttling_rate_limit: more than 0 requests per second."
  }
}

variable "api_throttling_burst_limit" {
  description = "Requests the HTTP API's stage lets through in a burst above the rate limit."
  type        = number
  default     = 400

  validation {
    condition     = var.api_throttling_burst_limit >= 1 && floor(var.api_throttling_burst_limit) == var.api_throttling_burst_limit
    error_message = "api_throttling_burst_limit: a whole number, at least 1."
  }
}

# --- maintenance and alarms --------------------------------------------------------------------

variable "maintenance_schedule" {
  description = "EventBridge schedule of the maintenance job (retention, transaction-hash purge): rate(<n> minutes|hours|days) or cron(<6 fields>)."
  type        = string
  default     = "rate(5 minutes)"

  validation {
    condition     = can(regex("^rate\\((1 (minute|hour|day)|([2-9]|[1-9][0-9]+) (minutes|hours|days))\\)$", var.maintenance_schedule)) || can(regex("^cron\\(\\S+( \\S+){5}\\)$", var.maintenance_schedule))
    error_message = "maintenance_schedule: an EventBridge schedule expression, rate(5 minutes), rate(1 hour) or cron(0/10 * * * ? *) (rate takes a singular unit for 1 and a plural one above)."
  }
}

variable "maintenance_failure_destination_arn" {
  description = "Where a maintenance run that failed after its retries is sent (the asynchronous invocation's on-failure destination): an SQS queue, SNS topic, Lambda function or EventBridge bus ARN. null: the module creates an SQS queue <name>-maintenance-failed (and an alarm on it)."
  type        = string
  default     = null

  validation {
    condition     = var.maintenance_failure_destination_arn == null || can(regex("^arn:aws[a-z-]*:(sqs|sns|lambda|events):[a-z0-9-]+:[0-9]{12}:.+$", coalesce(var.maintenance_failure_destination_arn, "-")))
    error_message = "maintenance_failure_destination_arn: the ARN of an SQS queue, SNS topic, Lambda function or EventBridge event bus."
  }
}

variable "alarm_topic_arns" {
  description = "SNS topics the CloudWatch alarms notify (alarm and OK). Empty: the alarms exist but notify nobody."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for a in var.alarm_topic_arns : can(regex("^arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_.-]+$", a))])
    error_message = "alarm_topic_arns: each entry is an SNS topic ARN (arn:aws:sns:<region>:<account>:<topic>)."
  }
}

# --- webhooks ----------------------------------------------------------------------------------

variable "webhook_sources" {
  description = <<-EOT
    Webhook sources, by name (the {source} of POST /webhooks/{source}; lowercase letters, digits
    and single hyphens, starting with a letter, e.g. github or standard-webhooks).
    Each field is one exactly.webhooks.sources.<name>.* setting (docs/deploy-aws.md lists them):
    preset: github, stripe, standard-webhooks, shopify, slack, gitlab, twitch, square, linear,
    paddle or generic. Optional: queue, partition / partition_header / partition_pointer,
    key_header / key_pointer / key_content_hash (with key_include / key_exclude), window_seconds,
    signature with signature_header, signature_prefix and signature_encoding, tolerance_seconds
    (stripe, slack, twitch, linear and paddle schemes only: 1 to 86400), notification_url (square),
    headers, max_body_bytes (at most 3112960), and secret_arn: the full
    ARN of an existing Secrets Manager secret holding the signing secret as its whole string.
    Without secret_arn the module creates the secret from webhook_secrets[name].
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
    condition     = alltrue([for name, s in var.webhook_sources : can(regex("^[a-z][a-z0-9]*(-[a-z0-9]+)*$", name)) && length(name) <= 63])
    error_message = "webhook_sources: each name is lowercase letters, digits and single hyphens, starting with a letter and not ending with a hyphen, at most 63 characters (e.g. standard-webhooks)."
  }

  validation {
    condition     = length(var.webhook_sources) <= 100
    error_message = "webhook_sources: at most 100 sources (each adds a secret the function reads when it starts)."
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
    condition     = alltrue([for s in values(var.webhook_sources) : s.max_body_bytes == null || (coalesce(s.max_body_bytes, 1) >= 1 && coalesce(s.max_body_bytes, 1) <= 3112960 && coalesce(s.max_body_bytes, 1) <= try(tonumber(var.app_settings["exactly.push.max-body-bytes"]), 3112960) && floor(coalesce(s.max_body_bytes, 1)) == coalesce(s.max_body_bytes, 1))])
    error_message = "webhook_sources: max_body_bytes is a whole number from 1 to 3112960, the largest body that always fits in a synchronous Lambda invocation (6 MB) once API Gateway has put it into the event, and at most exactly.push.max-body-bytes when app_settings lowers it (the HTTP layer enforces that first)."
  }

  # What the function would refuse or leave disabled at start-up, refused by plan.
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : alltrue([for n in [s.queue, s.partition] : n == null || can(regex("^[A-Za-z0-9._:-]{1,255}$", n)) && !contains([".", ".."], coalesce(n, "-"))])])
    error_message = "webhook_sources: queue and partition are 1 to 255 characters of letters, digits and . _ : -, other than . and .. (the names the function accepts)."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : alltrue([for p in [s.key_pointer, s.partition_pointer] : p == null || startswith(coalesce(p, "/"), "/")])])
    error_message = "webhook_sources: key_pointer and partition_pointer are JSON Pointers (RFC 6901): they start with '/', e.g. \"/id\"."
  }

  # The function's role is granted exactly these ARNs (iam.tf), and IAM matches a secret's full
  # ARN only: a partial ARN (the name without Secrets Manager's "-" and 6 random characters) would
  # be granted nothing, and the function's start would be denied.
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.secret_arn == null || can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", coalesce(s.secret_arn, "-")))])
    error_message = "webhook_sources: secret_arn is a secret's full ARN, ending in the 6 characters Secrets Manager appends (arn:aws:secretsmanager:<region>:<account>:secret:<name>-AbCdEf; `aws secretsmanager describe-secret --secret-id <name> --query ARN` prints it), not its name or a partial ARN: the function's role is granted exactly that ARN."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.window_seconds == null || (coalesce(s.window_seconds, 0) >= 0 && coalesce(s.window_seconds, 0) <= 2147483647 && floor(coalesce(s.window_seconds, 0)) == coalesce(s.window_seconds, 0))])
    error_message = "webhook_sources: window_seconds is a whole number of seconds from 0 (probe off) to 2147483647."
  }

  # The rules of dev.exactly.webhook.SignatureFactory: a tolerance only for the schemes that sign
  # a timestamp (the preset's scheme, or the one named in signature), 1 to 86400 s.
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.tolerance_seconds == null || contains(["stripe", "slack", "twitch", "linear", "paddle"], coalesce(s.signature, s.preset))])
    error_message = "webhook_sources: tolerance_seconds applies only to the schemes that sign a timestamp: stripe, slack, twitch, linear and paddle (the preset's own scheme, or the one named in signature). standard-webhooks' tolerance is fixed at 300 s by its specification; github, shopify, gitlab, square and hmac-sha256 sign no timestamp."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.tolerance_seconds == null || (coalesce(s.tolerance_seconds, 1) >= 1 && coalesce(s.tolerance_seconds, 1) <= 86400 && floor(coalesce(s.tolerance_seconds, 1)) == coalesce(s.tolerance_seconds, 1))])
    error_message = "webhook_sources: tolerance_seconds is a whole number of seconds from 1 to 86400."
  }

  # The rules of dev.exactly.webhook.SourceFactory (key and partition).
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : try(length(s.key_include), 0) + try(length(s.key_exclude), 0) == 0 || coalesce(s.key_content_hash, false)])
    error_message = "webhook_sources: key_include and key_exclude apply only with key_content_hash = true (they choose what the content hash covers)."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.partition_header == null || s.partition_pointer == null])
    error_message = "webhook_sources: set partition_header or partition_pointer, not both."
  }

  # Lists are written as one comma-separated setting: an entry with a comma would be split.
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : alltrue([for p in concat(s.key_include == null ? [] : s.key_include, s.key_exclude == null ? [] : s.key_exclude) : startswith(p, "/") && !strcontains(p, ",")])])
    error_message = "webhook_sources: each entry of key_include and key_exclude is a JSON Pointer (RFC 6901) starting with '/', without a comma (the list is written as one comma-separated setting), e.g. \"/sent_at\"."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.headers == null || try(length(s.headers) > 0 && alltrue([for h in s.headers : can(regex("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", h))]), false)])
    error_message = "webhook_sources: headers is a non-empty list of request header names (letters, digits and !#$%&'*+.^_`|~-, e.g. X-GitHub-Event); an empty list would be read as unset, that is the preset's headers."
  }

  # An empty string reads as an unset setting in the application's configuration, so a source
  # would silently fall back to its preset (or be refused at start for a missing setting).
  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : alltrue([for v in [s.partition_header, s.partition_pointer, s.key_header, s.key_pointer, s.signature, s.signature_header, s.signature_encoding, s.notification_url] : try(trimspace(v) != "", true)])])
    error_message = "webhook_sources: partition_header, partition_pointer, key_header, key_pointer, signature, signature_header, signature_encoding and notification_url are either left out or not blank (an empty value reads as unset)."
  }

  validation {
    condition     = alltrue([for s in values(var.webhook_sources) : s.notification_url == null || can(regex("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#[:space:]]+", s.notification_url))])
    error_message = "webhook_sources: notification_url is an absolute URL, exactly as entered in the Square subscription (e.g. https://hooks.example.com/webhooks/square)."
  }
}

variable "webhook_secrets" {
  description = "Signing secrets of the webhook sources without secret_arn, by source name. Write-only: Terraform sends them to Secrets Manager and keeps them in no state or plan file. Set with TF_VAR_webhook_secrets, and raise webhook_secrets_version to send changed values."
  type        = map(string)
  default     = {}
  sensitive   = true
  ephemeral   = true

  validation {
    condition     = alltrue([for v in values(var.webhook_secrets) : trimspace(v) != ""])
    error_message = "webhook_secrets: a signing secret is empty (an empty secret leaves its source disabled)."
  }

  # Cross-variable validation (Terraform 1.9 or newer). A source that checks a signature (every
  # preset, unless signature = "none") and has no secret_arn needs its secret here, or the
  # function would keep it disabled (404). The message names the sources that need one, not the
  # entries given: those are ephemeral and Terraform shows nothing derived from them.
  validation {
    condition     = alltrue([for name, s in var.webhook_sources : contains(keys(var.webhook_secrets), name) if coalesce(s.signature, s.preset == "generic" ? "none" : s.preset) != "none" && s.secret_arn == null])
    error_message = "webhook_secrets: no signing secret for a source that needs one. Each of ${join(", ", [for name, s in var.webhook_sources : name if coalesce(s.signature, s.preset == "generic" ? "none" : s.preset) != "none" && s.secret_arn == null])} checks a signature and has no secret_arn, so it needs an entry here (TF_VAR_webhook_secrets='{\"<name>\":\"<secret>\"}'), or a secret_arn."
  }

  # A Standard Webhooks secret is whsec_ (optional) and base64, as the specification prints it;
  # the function refuses anything else at start.
  validation {
    condition     = alltrue([for name, s in var.webhook_sources : can(regex("^(whsec_)?(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$", var.webhook_secrets[name])) && trimprefix(var.webhook_secrets[name], "whsec_") != "" if coalesce(s.signature, s.preset) == "standard-webhooks" && s.secret_arn == null && can(var.webhook_secrets[name])])
    error_message = "webhook_secrets: the secret of a standard-webhooks source (${join(", ", [for name, s in var.webhook_sources : name if coalesce(s.signature, s.preset) == "standard-webhooks" && s.secret_arn == null])}) is whsec_ followed by base64, as the provider shows it."
  }
}

variable "webhook_secrets_version" {
  description = "Raise it (1, 2, ...) to send changed values of webhook_secrets: they are write-only, so Terraform cannot see that a value changed."
  type        = number
  default     = 1

  validation {
    condition     = var.webhook_secrets_version >= 1 && floor(var.webhook_secrets_version) == var.webhook_secrets_version
    error_message = "webhook_secrets_version: a whole number, at least 1."
  }
}

variable "secrets_revision" {
  description = "Change it (any new text, e.g. a date) after changing a secret you reference with secret_arn: the function reads its secrets when a version starts, and this makes apply publish a new version."
  type        = string
  default     = ""
}

variable "kms_key_arn" {
  description = "ARN of the customer-managed KMS key that encrypts secrets you reference with secret_arn, if any: the function's role gets kms:Decrypt on it, through Secrets Manager only. Secrets the module creates use the AWS managed key."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/.+$", coalesce(var.kms_key_arn, "-")))
    error_message = "kms_key_arn: the ARN of a KMS key (arn:aws:kms:<region>:<account>:key/<key id>), not an alias."
  }
}

# --- destinations (docs/destinations.md) --------------------------------------------------------

variable "destinations" {
  description = <<-EOT
    Destinations, by name (lowercase letters, digits, hyphens and underscores, at most 63): every
    message stored in the destination's queue is delivered to it. Each field is one
    exactly.destinations.<name>.* setting (docs/configuration.md), written into the settings
    document. queue (required); type: http (default), sqs or eventbridge;
    http: url, and signing_secret_arn, the full ARN of a Secrets Manager secret whose whole string
    is the Standard Webhooks secret (whsec_ + base64 of 24 to 64 bytes); none: unsigned;
    sqs: queue_url (https://sqs.<region>.amazonaws.com/<account>/<name>; a name ending in .fifo is
    a FIFO queue); eventbridge: event_bus_arn, event_source, detail_type;
    any type: timeout_ms (1 to 60000), max_attempts (1 to 100), backoff_ms and backoff_cap_ms
    (1 to 3600000, cap not below backoff), ordered (true by default: one message of a partition
    in flight at a time; false: a leased batch's messages are sent at once). The function's role
    may send to exactly the named queues and buses (iam.tf, delivery.tf).
  EOT
  type = map(object({
    queue              = string
    type               = optional(string, "http")
    url                = optional(string)
    signing_secret_arn = optional(string)
    queue_url          = optional(string)
    event_bus_arn      = optional(string)
    event_source       = optional(string)
    detail_type        = optional(string)
    timeout_ms         = optional(number)
    max_attempts       = optional(number)
    backoff_ms         = optional(number)
    backoff_cap_ms     = optional(number)
    ordered            = optional(bool)
  }))
  default = {}

  validation {
    condition     = alltrue([for name in keys(var.destinations) : can(regex("^[a-z0-9][a-z0-9_-]{0,62}$", name))])
    error_message = "destinations: each name is 1 to 63 lowercase letters, digits, hyphens and underscores, starting with a letter or digit (it becomes part of the config keys exactly.destinations.<name>.*)."
  }

  validation {
    condition     = length(var.destinations) <= 50
    error_message = "destinations: at most 50 (each is read from the settings document at every start)."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : can(regex("^[A-Za-z0-9._:-]{1,255}$", d.queue)) && d.queue != "." && d.queue != ".."])
    error_message = "destinations: queue is a queue name, 1 to 255 characters of [A-Za-z0-9._:-], not . or .."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : contains(["http", "sqs", "eventbridge"], d.type)])
    error_message = "destinations: type is http, sqs or eventbridge."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : d.type != "http" || (d.url != null && can(regex("^https?://[^/?#@]+([/?][^#]*)?$", coalesce(d.url, "-"))) && length(coalesce(d.url, "-")) <= 2048)])
    error_message = "destinations: an http destination has a url: http:// or https://, a host, no user information (user@), no fragment (#), at most 2048 characters."
  }

  validation {
    condition = alltrue([for d in values(var.destinations) : d.type != "http" || d.url == null || (
      can(regex("^https?://(\\[[^\\]/]*\\]|[^/?#@:\\[]*)(:[0-9]{0,5})?([/?]|$)", coalesce(d.url, "-"))) &&
      try(tonumber(regex("^https?://(?:\\[[^\\]/]*\\]|[^/?#@:\\[]*):([0-9]{1,5})", d.url)[0]) >= 1 &&
      tonumber(regex("^https?://(?:\\[[^\\]/]*\\]|[^/?#@:\\[]*):([0-9]{1,5})", d.url)[0]) <= 65535, true)
    )])
    error_message = "destinations: an http destination's url has a port from 1 to 65535, or none (80 for http, 443 for https)."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : d.signing_secret_arn == null || can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", coalesce(d.signing_secret_arn, "-")))])
    error_message = "destinations: signing_secret_arn is a secret's full ARN, ending in the 6 characters Secrets Manager appends (arn:aws:secretsmanager:<region>:<account>:secret:<name>-AbCdEf): the function's role is granted exactly that ARN."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : d.type != "sqs" || (d.queue_url != null && can(regex("^https://sqs\\.[a-z0-9-]+\\.amazonaws\\.com/[0-9]{12}/([A-Za-z0-9_-]{1,75}(\\.fifo)?|[A-Za-z0-9_-]{76,80})$", coalesce(d.queue_url, "-"))))])
    error_message = "destinations: an sqs destination has a queue_url, https://sqs.<region>.amazonaws.com/<account>/<queue name> (the module grants sqs:SendMessage on the queue it names)."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : d.type != "eventbridge" || (d.event_bus_arn != null && can(regex("^arn:aws[a-z-]*:events:[a-z0-9-]+:[0-9]{12}:event-bus/[/._A-Za-z0-9-]{1,256}$", coalesce(d.event_bus_arn, "-"))))])
    error_message = "destinations: an eventbridge destination has an event_bus_arn, arn:aws:events:<region>:<account>:event-bus/<name> (the module grants events:PutEvents on it)."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : d.event_source == null || (length(coalesce(d.event_source, "-")) <= 256 && !startswith(coalesce(d.event_source, "-"), "aws."))])
    error_message = "destinations: event_source is 1 to 256 characters and does not start with aws. (EventBridge keeps those for AWS services)."
  }

  validation {
    condition     = alltrue([for d in values(var.destinations) : d.detail_type == null || length(coalesce(d.detail_type, "-")) <= 128])
    error_message = "destinations: detail_type is 1 to 128 characters."
  }

  validation {
    condition = alltrue([for d in values(var.destinations) : alltrue([
      d.type == "http" || (d.url == null && d.signing_secret_arn == null),
      d.type == "sqs" || d.queue_url == null,
      d.type == "eventbridge" || (d.event_bus_arn == null && d.event_source == null && d.detail_type == null),
    ])])
    error_message = "destinations: a field belongs to its type only: url and signing_secret_arn to http, queue_url to sqs, event_bus_arn, event_source and detail_type to eventbridge."
  }

  validation {
    condition = alltrue([for d in values(var.destinations) : alltrue([
      d.timeout_ms == null || (coalesce(d.timeout_ms, 1) >= 1 && coalesce(d.timeout_ms, 1) <= 60000 && floor(coalesce(d.timeout_ms, 1)) == coalesce(d.timeout_ms, 1)),
      d.max_attempts == null || (coalesce(d.max_attempts, 1) >= 1 && coalesce(d.max_attempts, 1) <= 100 && floor(coalesce(d.max_attempts, 1)) == coalesce(d.max_attempts, 1)),
      d.backoff_ms == null || (coalesce(d.backoff_ms, 1) >= 1 && coalesce(d.backoff_ms, 1) <= 3600000 && floor(coalesce(d.backoff_ms, 1)) == coalesce(d.backoff_ms, 1)),
      d.backoff_cap_ms == null || (coalesce(d.backoff_cap_ms, 1) >= 1 && coalesce(d.backoff_cap_ms, 1) <= 3600000 && floor(coalesce(d.backoff_cap_ms, 1)) == coalesce(d.backoff_cap_ms, 1)),
      coalesce(d.backoff_cap_ms, 300000) >= coalesce(d.backoff_ms, 1000),
    ])])
    error_message = "destinations: timeout_ms is 1 to 60000, max_attempts 1 to 100, backoff_ms and backoff_cap_ms 1 to 3600000 (whole numbers), and backoff_cap_ms is not below backoff_ms (defaults 10000, 10, 1000 and 300000)."
  }
}

variable "destination_kms_key_arns" {
  description = "Customer-managed KMS keys of the SQS destination queues that use SSE-KMS: the function's role gets kms:GenerateDataKey and kms:Decrypt on them, through SQS only."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for k in var.destination_kms_key_arns : can(regex("^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/.+$", k))])
    error_message = "destination_kms_key_arns: ARNs of KMS keys (arn:aws:kms:<region>:<account>:key/<key id>), not aliases."
  }
}

variable "delivery_allowed_hosts" {
  description = "Host names or CIDR ranges a destination may reach although their addresses are refused by default (private, loopback, link-local ...): exactly.delivery.allowed-hosts. E.g. [\"hooks.internal.example\", \"10.1.0.0/16\"] for a receiver inside the VPC."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for h in var.delivery_allowed_hosts : can(regex("^([A-Za-z0-9.-]+|[0-9.]+/[0-9]{1,2}|[0-9A-Fa-f:.]+(/[0-9]{1,3})?)$", h)) && !strcontains(h, ",")])
    error_message = "delivery_allowed_hosts: each entry is a host name, an address or a CIDR range (e.g. 10.1.0.0/16)."
  }
}

variable "delivery_schedule" {
  description = "How often the HTTP function drains every destination (retries that came due, parked partitions, what other invocations left, catch-up after a receiver recovers): an EventBridge schedule expression."
  type        = string
  default     = "rate(1 minute)"

  validation {
    condition     = can(regex("^rate\\((1 minute|([2-9]|1[0-5]) minutes)\\)$", var.delivery_schedule)) || can(regex("^cron\\(\\S+( \\S+){5}\\)$", var.delivery_schedule))
    error_message = "delivery_schedule: an EventBridge schedule expression, rate(1 minute) up to rate(15 minutes), or cron(* * * * ? *) (a retry or a recovered receiver waits for it)."
  }
}
