# `terraform test` (1.11): the module planned offline against the pinned AWS provider, and the
# values plan must refuse in the module's own words (expect_failures names the variable whose
# validation must fail). .ci/run runs it with -var function_zip=<a stand-in zip>; no AWS account
# is needed: fake credentials, the provider's skip_* flags, no refresh.

provider "aws" {
  region                      = "eu-west-1"
  access_key                  = "offline-test"
  secret_key                  = "offline-test"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

variables {
  region         = "eu-west-1"
  vpc_id         = "vpc-0123456789abcdef0"
  subnet_ids     = ["subnet-0123456789abcdef0", "subnet-0fedcba9876543210"]
  api_key_sha256 = ["2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"]
  webhook_sources = {
    github = { preset = "github" }
  }
  webhook_secrets = { github = "offline-test-secret" }
}

# --- what plans --------------------------------------------------------------------------------

run "defaults_plan" {
  command = plan
  plan_options {
    refresh = false
  }

  assert {
    condition     = aws_lambda_function.this.timeout == 28 && aws_apigatewayv2_integration.function.timeout_milliseconds == 30000
    error_message = "the HTTP function times out at 28 s and the API waits 30 s"
  }
  assert {
    condition     = aws_lambda_function.this.reserved_concurrent_executions == 40
    error_message = "concurrency is bounded by default"
  }
  assert {
    condition     = aws_lambda_function.maintenance.timeout == 300 && aws_lambda_function.maintenance.reserved_concurrent_executions == 1
    error_message = "maintenance runs in its own function, longer, one at a time"
  }
  assert {
    condition     = aws_db_instance.this.manage_master_user_password == true && aws_db_instance.this.password == null
    error_message = "RDS keeps the master password; the module passes none"
  }
  assert {
    condition     = toset(keys(local.environment)) == toset(["JAVA_TOOL_OPTIONS", "QUARKUS_PROFILE", "QUARKUS_DATASOURCE_REACTIVE_URL", "EXACTLY_AUTH_API_KEY_SHA256", "EXACTLY_SECRETS_DOCUMENT", "EXACTLY_SECRETS_VERSION"])
    error_message = "the environment is a fixed handful of variables (the rest is in the settings document)"
  }
  assert {
    condition     = one([for p in aws_db_parameter_group.this.parameter : p.value if p.name == "max_connections"]) == "100"
    error_message = "max_connections is set, so plan can hold concurrency against it"
  }
}

# The longest name the module allows still plans: the provider accepts every name derived from it
# (IAM name_prefix "<name>-proxy-" at 38 characters, RDS identifiers, the snapshot name).
run "longest_name_plans" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    name = "abcdefghij-klmnopqrst-uvwxyz012"
  }
}

# Own security groups, own failure destination, alarms to a topic, many sources, no reservation.
run "alternatives_plan" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    create_security_groups              = false
    vpc_id                              = null
    lambda_security_group_ids           = ["sg-0123456789abcdef0"]
    database_security_group_ids         = ["sg-0fedcba9876543210"]
    lambda_reserved_concurrency         = -1
    lambda_runtime                      = "java17"
    db_multi_az                         = true
    maintenance_schedule                = "cron(0/10 * * * ? *)"
    maintenance_failure_destination_arn = "arn:aws:sns:eu-west-1:123456789012:ops"
    alarm_topic_arns                    = ["arn:aws:sns:eu-west-1:123456789012:ops"]
    kms_key_arn                         = "arn:aws:kms:eu-west-1:123456789012:key/0f0e0d0c-0b0a-0908-0706-050403020100"
    app_settings                        = { "exactly.tasks.max-body-bytes" = "1048576" }
    webhook_sources = {
      github = { preset = "github" }
      stripe = { preset = "stripe", queue = "payments.stripe", tolerance_seconds = 600, secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stripe-webhook-AbCdEf" }
      square = { preset = "square" }
      # the server shape's built-in name, and so its URL /webhooks/standard-webhooks
      "standard-webhooks" = { preset = "standard-webhooks", window_seconds = 172800 }
      acme                = { preset = "generic", signature = "hmac-sha256", signature_header = "X-Acme-Signature", signature_prefix = "sha256=", key_pointer = "/id", window_seconds = 172800 }
      open                = { preset = "generic", signature = "none", key_content_hash = true, key_exclude = ["/sent_at"] }
    }
    webhook_secrets = { github = "g", square = "s", acme = "a", "standard-webhooks" = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }
  }

  assert {
    condition     = length(aws_security_group.function) == 0
    error_message = "no security group is made when you pass yours"
  }
  assert {
    condition     = length(aws_sqs_queue.maintenance_failed) == 0
    error_message = "no failure queue is made when you name a destination"
  }
  assert {
    condition     = aws_lambda_function.this.reserved_concurrent_executions == -1 && aws_lambda_function.maintenance.reserved_concurrent_executions == -1
    error_message = "-1 reserves nothing for either function (an account with a quota of 10 can reserve nothing)"
  }
  assert {
    condition     = length(aws_secretsmanager_secret.webhook) == 4
    error_message = "github, square, acme and standard-webhooks get a secret; stripe has its own; open checks none"
  }
}

# Destinations of every type: their settings and signing-secret references in the settings
# document, IAM on exactly the named queue, bus, key and the function's own alias, the schedule.
run "destinations_plan" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = {
      billing = {
        queue              = "webhooks.github"
        url                = "https://billing.example.com/hooks/github"
        signing_secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:billing-signing-AbCdEf"
        timeout_ms         = 5000
      }
      orders_fifo = {
        queue     = "webhooks.github"
        type      = "sqs"
        queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo"
      }
      bus = {
        ordered       = false
        queue         = "webhooks.github"
        type          = "eventbridge"
        event_bus_arn = "arn:aws:events:eu-west-1:123456789012:event-bus/orders"
        detail_type   = "github.delivery"
      }
    }
    destination_kms_key_arns = ["arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555"]
    delivery_allowed_hosts   = ["hooks.internal.example", "10.1.0.0/16"]
  }

  assert {
    condition = alltrue([
      local.settings_properties["exactly.destinations.billing.queue"] == "webhooks.github",
      local.settings_properties["exactly.destinations.billing.url"] == "https://billing.example.com/hooks/github",
      local.settings_properties["exactly.destinations.billing.timeout-ms"] == "5000",
      local.settings_properties["exactly.destinations.orders_fifo.type"] == "sqs",
      local.settings_properties["exactly.destinations.orders_fifo.queue-url"] == "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo",
      local.settings_properties["exactly.destinations.bus.event-bus"] == "arn:aws:events:eu-west-1:123456789012:event-bus/orders",
      local.settings_properties["exactly.destinations.bus.detail-type"] == "github.delivery",
      local.settings_properties["exactly.destinations.bus.ordered"] == "false",
      !contains(keys(local.settings_properties), "exactly.destinations.billing.ordered"),
      local.settings_properties["exactly.delivery.allowed-hosts"] == "hooks.internal.example,10.1.0.0/16",
      !contains(keys(local.settings_properties), "exactly.destinations.billing.signing-secret"),
    ])
    error_message = "each destination's settings are config keys of the settings document; its signing secret is not among them"
  }
  assert {
    condition     = local.settings_secrets["exactly.destinations.billing.signing-secret"] == "arn:aws:secretsmanager:eu-west-1:123456789012:secret:billing-signing-AbCdEf"
    error_message = "the signing secret is a Secrets Manager reference, read at start"
  }
  assert {
    condition     = contains(local.function_secret_arns, "arn:aws:secretsmanager:eu-west-1:123456789012:secret:billing-signing-AbCdEf")
    error_message = "the function's role may read the signing secret"
  }
  assert {
    condition     = length(local.destination_queue_arns) == 1 && local.destination_queue_arns[0] == "arn:aws:sqs:eu-west-1:123456789012:orders.fifo"
    error_message = "sqs:SendMessage on the queue the URL names"
  }
  assert {
    condition = alltrue([
      one([for st in jsondecode(data.aws_iam_policy_document.destinations.json).Statement : st.Resource if st.Sid == "SendToDestinationQueues"]) == "arn:aws:sqs:eu-west-1:123456789012:orders.fifo",
      one([for st in jsondecode(data.aws_iam_policy_document.destinations.json).Statement : st.Action if st.Sid == "SendToDestinationQueues"]) == "sqs:SendMessage",
      one([for st in jsondecode(data.aws_iam_policy_document.destinations.json).Statement : st.Resource if st.Sid == "PutEventsToDestinationBuses"]) == "arn:aws:events:eu-west-1:123456789012:event-bus/orders",
      one([for st in jsondecode(data.aws_iam_policy_document.destinations.json).Statement : st.Action if st.Sid == "PutEventsToDestinationBuses"]) == "events:PutEvents",
      toset(one([for st in jsondecode(data.aws_iam_policy_document.destinations.json).Statement : st.Action if st.Sid == "EncryptForDestinationQueues"])) == toset(["kms:GenerateDataKey", "kms:Decrypt"]),
      one([for st in jsondecode(data.aws_iam_policy_document.destinations.json).Statement : st.Condition.StringEquals["kms:ViaService"] if st.Sid == "EncryptForDestinationQueues"]) == "sqs.eu-west-1.amazonaws.com",
    ])
    error_message = "IAM grants SendMessage, PutEvents and the SSE-KMS key on exactly the named ARNs"
  }
  assert {
    condition     = jsondecode(aws_cloudwatch_event_target.delivery.input) == { exactly = "deliver" } && aws_cloudwatch_event_rule.delivery.schedule_expression == "rate(1 minute)"
    error_message = "every minute the schedule sends the drain event"
  }
  assert {
    condition     = aws_lambda_permission.delivery.principal == "events.amazonaws.com" && aws_lambda_permission.delivery.qualifier == "live"
    error_message = "the schedule may invoke the live alias"
  }
  assert {
    condition     = aws_lambda_function_event_invoke_config.delivery.maximum_retry_attempts == 0 && aws_lambda_function_event_invoke_config.delivery.qualifier == "live"
    error_message = "a drain is not retried by Lambda: the next one delivers"
  }
  assert {
    condition     = toset(keys(local.environment)) == toset(["JAVA_TOOL_OPTIONS", "QUARKUS_PROFILE", "QUARKUS_DATASOURCE_REACTIVE_URL", "EXACTLY_AUTH_API_KEY_SHA256", "EXACTLY_SECRETS_DOCUMENT", "EXACTLY_SECRETS_VERSION"])
    error_message = "destinations add nothing to the environment (they are in the settings document)"
  }
}

run "no_destinations_grant_no_queue_or_bus" {
  command = plan
  plan_options {
    refresh = false
  }
  assert {
    condition     = length(try(jsondecode(data.aws_iam_policy_document.destinations.json).Statement, [])) == 0
    error_message = "without destinations the role may send to no queue, bus or key (it may still invoke its own alias, for destinations defined through the API)"
  }
}

# --- what plan refuses --------------------------------------------------------------------------

run "refuses_zero_concurrency" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    lambda_reserved_concurrency = 0
  }
  expect_failures = [var.lambda_reserved_concurrency]
}

run "refuses_concurrency_over_the_connection_limit" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    lambda_reserved_concurrency = 45
  }
  expect_failures = [var.lambda_reserved_concurrency]
}

run "refuses_db_name_with_hyphen" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    db_name = "my-db"
  }
  expect_failures = [var.db_name]
}

run "refuses_schedule_that_is_no_expression" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    maintenance_schedule = "every5min"
  }
  expect_failures = [var.maintenance_schedule]
}

run "refuses_rate_with_wrong_unit_number" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    maintenance_schedule = "rate(1 minutes)"
  }
  expect_failures = [var.maintenance_schedule]
}

run "refuses_java25" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    lambda_runtime = "java25"
  }
  expect_failures = [var.lambda_runtime]
}

run "refuses_name_too_long" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    name = "abcdefghij-klmnopqrst-uvwxyz0123"
  }
  expect_failures = [var.name]
}

run "refuses_name_with_doubled_hyphen" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    name = "exactly--prod"
  }
  expect_failures = [var.name]
}

run "refuses_name_with_trailing_hyphen" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    name = "exactly-"
  }
  expect_failures = [var.name]
}

run "refuses_name_in_upper_case" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    name = "Exactly"
  }
  expect_failures = [var.name]
}

run "refuses_partial_secret_arn" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      stripe = { preset = "stripe", secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stripe-webhook" }
    }
    webhook_secrets = {}
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_signed_source_without_secret" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      github = { preset = "github" }
      stripe = { preset = "stripe" }
    }
    webhook_secrets = { github = "g" }
  }
  expect_failures = [var.webhook_secrets]
}

run "refuses_deadline_too_close_to_the_function_timeout" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    request_deadline_ms = 27000
  }
  expect_failures = [var.request_deadline_ms]
}

run "refuses_deadline_shorter_than_the_longest_long_poll" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    request_deadline_ms = 21999
  }
  expect_failures = [var.request_deadline_ms]
}

run "refuses_function_timeout_over_the_api_timeout" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    lambda_timeout_seconds = 31
  }
  expect_failures = [var.lambda_timeout_seconds]
}

run "refuses_api_timeout_below_the_function_timeout" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    api_integration_timeout_ms = 20000
  }
  expect_failures = [var.lambda_timeout_seconds]
}

run "refuses_api_timeout_over_30_seconds" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    api_integration_timeout_ms = 31000
  }
  expect_failures = [var.api_integration_timeout_ms]
}

run "refuses_maintenance_timeout_over_15_minutes" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    maintenance_timeout_seconds = 901
  }
  expect_failures = [var.maintenance_timeout_seconds]
}

run "refuses_security_groups_without_vpc" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    vpc_id = null
  }
  expect_failures = [var.create_security_groups]
}

run "refuses_a_key_instead_of_its_digest" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    api_key_sha256 = ["my-secret-api-key"]
  }
  expect_failures = [var.api_key_sha256]
}

run "refuses_the_example_placeholder_digest" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    api_key_sha256 = ["0000000000000000000000000000000000000000000000000000000000000000"]
  }
  expect_failures = [var.api_key_sha256]
}

run "refuses_the_digest_of_an_empty_key" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    api_key_sha256 = ["E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"]
  }
  expect_failures = [var.api_key_sha256]
}

run "refuses_no_api_key" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    api_key_sha256 = []
  }
  expect_failures = [var.api_key_sha256]
}

run "refuses_a_reserved_master_username" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    db_master_username = "admin"
  }
  expect_failures = [var.db_master_username]
}

run "refuses_a_retention_cloudwatch_does_not_offer" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    log_retention_days = 10
  }
  expect_failures = [var.log_retention_days]
}

run "refuses_a_failure_destination_that_lambda_cannot_use" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    maintenance_failure_destination_arn = "arn:aws:s3:::my-bucket"
  }
  expect_failures = [var.maintenance_failure_destination_arn]
}

# --- webhook sources the function would refuse at start (SignatureFactory, SourceFactory) -------

run "refuses_tolerance_for_a_scheme_without_timestamp" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      github = { preset = "github", tolerance_seconds = 300 }
    }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_tolerance_for_standard_webhooks" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      sw = { preset = "standard-webhooks", tolerance_seconds = 600 }
    }
    webhook_secrets = { sw = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_tolerance_over_a_day" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      stripe = { preset = "stripe", tolerance_seconds = 100000 }
    }
    webhook_secrets = { stripe = "whsec_test" }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_tolerance_of_zero" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      slack = { preset = "slack", tolerance_seconds = 0 }
    }
    webhook_secrets = { slack = "s" }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_fractional_window" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      github = { preset = "github", window_seconds = 1.5 }
    }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_key_include_without_content_hash" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      github = { preset = "github", key_include = ["/id"] }
    }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_key_exclude_that_is_no_pointer" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      open = { preset = "generic", signature = "none", key_content_hash = true, key_exclude = ["sent_at"] }
    }
    webhook_secrets = {}
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_partition_header_and_pointer" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      github = { preset = "github", partition_header = "X-Tenant", partition_pointer = "/tenant" }
    }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_an_empty_headers_list" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      github = { preset = "github", headers = [] }
    }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_an_empty_signature_header" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      acme = { preset = "generic", signature = "hmac-sha256", signature_header = "", key_pointer = "/id" }
    }
    webhook_secrets = { acme = "a" }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_a_relative_notification_url" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      square = { preset = "square", notification_url = "/webhooks/square" }
    }
    webhook_secrets = { square = "s" }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_a_source_name_with_doubled_hyphen" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      "standard--webhooks" = { preset = "standard-webhooks" }
    }
    webhook_secrets = { "standard--webhooks" = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }
  }
  expect_failures = [var.webhook_sources]
}

run "refuses_a_standard_webhooks_secret_that_is_not_base64" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    webhook_sources = {
      sw = { preset = "standard-webhooks" }
    }
    webhook_secrets = { sw = "whsec_not base64!" }
  }
  expect_failures = [var.webhook_secrets]
}

run "refuses_a_destination_without_url" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_destination_url_with_user_information" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q", url = "https://user:pw@billing.example.com/" } }
  }
  expect_failures = [var.destinations]
}

run "destination_urls_with_ports_plan" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = {
      a = { queue = "q", url = "https://billing.example.com:8443/hooks" }
      b = { queue = "q", url = "http://[2001:db8::1]:65535/" }
      c = { queue = "q", url = "https://billing.example.com:1?x=1" }
    }
  }
}

run "refuses_a_destination_url_port_above_65535" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q", url = "https://billing.example.com:99999/hooks" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_destination_url_port_0" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q", url = "https://billing.example.com:0/" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_destination_url_port_that_is_not_a_number" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q", url = "https://billing.example.com:https/" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_partial_signing_secret_arn" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q", url = "https://billing.example.com/", signing_secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:billing" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_an_sqs_destination_without_a_queue_url" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { orders = { queue = "q", type = "sqs", url = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_an_event_bus_by_name" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { bus = { queue = "q", type = "eventbridge", event_bus_arn = "orders" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_an_unknown_destination_type" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { sns = { queue = "q", type = "sns" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_backoff_cap_below_the_backoff" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "q", url = "https://billing.example.com/", backoff_ms = 5000, backoff_cap_ms = 1000 } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_bad_queue_name" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { billing = { queue = "my queue", url = "https://billing.example.com/" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_destination_name_with_a_dot" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destinations = { "bill.ing" = { queue = "q", url = "https://billing.example.com/" } }
  }
  expect_failures = [var.destinations]
}

run "refuses_a_kms_alias_for_destination_queues" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    destination_kms_key_arns = ["alias/orders"]
  }
  expect_failures = [var.destination_kms_key_arns]
}

run "refuses_a_slow_delivery_schedule" {
  command = plan
  plan_options {
    refresh = false
  }
  variables {
    delivery_schedule = "rate(1 hour)"
  }
  expect_failures = [var.delivery_schedule]
}
