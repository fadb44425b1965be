# RDS Proxy between the function's many short-lived instances and PostgreSQL. Clients must use
# TLS and log in as the application role (its secret, aws_secretsmanager_secret.app); the proxy
# opens at most proxy_max_connections_percent of db_max_connections. Its idle client timeout stays
# above the function's pool max-lifetime (a test checks it). The Lambda shape keeps its
# connections proxy-friendly (no prepared-statement cache, no session SET, no LISTEN; its session
# limits are the role's own settings): docs/deploy-aws.md, "RDS Proxy and pinning".

resource "aws_db_proxy" "this" {
  name                   = "${var.name}-proxy"
  engine_family          = "POSTGRESQL"
  role_arn               = aws_iam_role.proxy.arn
  vpc_subnet_ids         = var.subnet_ids
  vpc_security_group_ids = local.proxy_security_group_ids
  require_tls            = true
  idle_client_timeout    = var.proxy_idle_client_timeout_seconds

  auth {
    auth_scheme               = "SECRETS"
    client_password_auth_type = "POSTGRES_SCRAM_SHA_256"
    iam_auth                  = "DISABLED"
    secret_arn                = aws_secretsmanager_secret.app.arn
    description               = "the application role, written by the migrate step"
  }
}

resource "aws_db_proxy_default_target_group" "this" {
  db_proxy_name = aws_db_proxy.this.name

  connection_pool_config {
    max_connections_percent      = var.proxy_max_connections_percent
    max_idle_connections_percent = floor(var.proxy_max_connections_percent / 2)
    # seconds a request waits for a database connection when all are taken: well inside the
    # request deadline, so the function still answers 503 problem+json itself
    connection_borrow_timeout = 10
  }
}

resource "aws_db_proxy_target" "this" {
  db_proxy_name          = aws_db_proxy.this.name
  target_group_name      = aws_db_proxy_default_target_group.this.name
  db_instance_identifier = aws_db_instance.this.identifier
}
