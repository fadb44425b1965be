# PostgreSQL on RDS, reachable only inside the VPC. No password passes through Terraform:
# - the master user's password is made, kept and rotated by RDS in Secrets Manager
#   (manage_master_user_password); only the migrate step uses it, read when it runs;
# - the application role (var.db_app_username) is made by the migrate step, which writes its
#   credentials into aws_secretsmanager_secret.app (created here without a value) and keeps the
#   role's password equal to that secret on every run. The RDS Proxy and the function read it.

resource "aws_db_subnet_group" "this" {
  name       = "${var.name}-db"
  subnet_ids = var.subnet_ids
}

# max_connections is set, not left to RDS's memory formula, so that plan can hold the functions'
# concurrency against it (variables.tf, lambda_reserved_concurrency).
resource "aws_db_parameter_group" "this" {
  name_prefix = "${var.name}-pg${local.postgres_major}-"
  family      = "postgres${local.postgres_major}"
  description = "Exactly: max_connections for the functions' bounded concurrency"

  parameter {
    name         = "max_connections"
    value        = tostring(var.db_max_connections)
    apply_method = "pending-reboot"
  }

  parameter {
    name  = "rds.force_ssl"
    value = "1"
  }

  lifecycle {
    create_before_destroy = true
  }
}

locals {
  postgres_major = split(".", var.postgres_version)[0]
}

resource "aws_db_instance" "this" {
  identifier                 = "${var.name}-db"
  engine                     = "postgres"
  engine_version             = var.postgres_version
  auto_minor_version_upgrade = true
  instance_class             = var.db_instance_class
  allocated_storage          = var.db_allocated_storage_gb
  max_allocated_storage      = var.db_max_allocated_storage_gb == 0 ? null : var.db_max_allocated_storage_gb
  storage_type               = "gp3"
  storage_encrypted          = true
  kms_key_id                 = var.db_kms_key_arn
  multi_az                   = var.db_multi_az
  parameter_group_name       = aws_db_parameter_group.this.name

  db_name                       = var.db_name
  username                      = var.db_master_username
  manage_master_user_password   = true
  master_user_secret_kms_key_id = var.db_kms_key_arn

  db_subnet_group_name   = aws_db_subnet_group.this.name
  vpc_security_group_ids = local.database_security_group_ids
  publicly_accessible    = false

  backup_retention_period = var.db_backup_retention_days
  copy_tags_to_snapshot   = true
  deletion_protection     = var.db_deletion_protection
  skip_final_snapshot     = var.db_skip_final_snapshot
  # Named after the time this instance was created (the value is kept, see ignore_changes), so
  # destroying a second instance of the same name does not collide with the first one's snapshot.
  final_snapshot_identifier = "${var.name}-db-final-${formatdate("YYYYMMDDhhmmss", timestamp())}"
  apply_immediately         = true

  lifecycle {
    ignore_changes = [final_snapshot_identifier]
  }
}

# The application role's credentials: {"username": ..., "password": ...}, written by the migrate
# step (the module writes no version, so it never overwrites what that step wrote).
resource "aws_secretsmanager_secret" "app" {
  name_prefix             = "${var.name}-db-app-"
  description             = "Credentials of the Exactly application role ${var.db_app_username}: written by POST /api/v1/admin/migrate, read by the RDS Proxy and the function."
  recovery_window_in_days = 7
}

locals {
  master_secret_arn = aws_db_instance.this.master_user_secret[0].secret_arn
}
