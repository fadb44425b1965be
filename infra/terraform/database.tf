# PostgreSQL on RDS, reachable only through the RDS Proxy (TLS required). The password is
# generated here, kept in Secrets Manager (the proxy reads it there) and never written in a file.

resource "random_password" "db" {
  length  = 40
  special = false
}

resource "aws_secretsmanager_secret" "db" {
  name_prefix             = "${var.name}-db-"
  description             = "Credentials of the Exactly database user (read by the RDS Proxy)."
  recovery_window_in_days = 7
}

resource "aws_secretsmanager_secret_version" "db" {
  secret_id = aws_secretsmanager_secret.db.id
  secret_string = jsonencode({
    username = var.db_username
    password = random_password.db.result
  })
}

resource "aws_db_subnet_group" "this" {
  name       = "${var.name}-db"
  subnet_ids = var.subnet_ids
}

resource "aws_db_instance" "this" {
  identifier                 = "${var.name}-db"
  engine                     = "postgres"
  engine_version             = var.postgres_version
  auto_minor_version_upgrade = true
  instance_class             = var.db_instance_class
  allocated_storage          = var.db_allocated_storage_gb
  storage_type               = "gp3"
  storage_encrypted          = true

  db_name  = var.db_name
  username = jsondecode(aws_secretsmanager_secret_version.db.secret_string)["username"]
  password = jsondecode(aws_secretsmanager_secret_version.db.secret_string)["password"]

  db_subnet_group_name   = aws_db_subnet_group.this.name
  vpc_security_group_ids = var.database_security_group_ids
  publicly_accessible    = false

  backup_retention_period   = 7
  deletion_protection       = var.db_deletion_protection
  skip_final_snapshot       = var.db_skip_final_snapshot
  final_snapshot_identifier = "${var.name}-db-final"
  apply_immediately         = true
}
