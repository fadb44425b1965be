# Security groups (create_security_groups = true, the default): one for the functions, one for
# the RDS Proxy, one for the database, with only the traffic the deployment needs:
#   functions -> proxy     TCP 5432 (every request's database connection)
#   functions -> database  TCP 5432 (the migrate step connects to the instance directly)
#   functions -> anywhere  TCP 443  (Secrets Manager, through a NAT gateway or an interface
#                                    VPC endpoint, whose own group must allow 443 from here)
#   proxy     -> database  TCP 5432
# With create_security_groups = false, var.lambda_security_group_ids and
# var.database_security_group_ids are used as they are (the proxy and the database share those).

locals {
  lambda_security_group_ids   = var.create_security_groups ? [aws_security_group.function[0].id] : var.lambda_security_group_ids
  proxy_security_group_ids    = var.create_security_groups ? [aws_security_group.proxy[0].id] : var.database_security_group_ids
  database_security_group_ids = var.create_security_groups ? [aws_security_group.database[0].id] : var.database_security_group_ids
}

resource "aws_security_group" "function" {
  count       = var.create_security_groups ? 1 : 0
  name_prefix = "${var.name}-function-"
  description = "Exactly functions: out to the RDS Proxy and the database on 5432, to Secrets Manager on 443"
  vpc_id      = var.vpc_id

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group" "proxy" {
  count       = var.create_security_groups ? 1 : 0
  name_prefix = "${var.name}-proxy-"
  description = "Exactly RDS Proxy: in from the functions on 5432, out to the database on 5432"
  vpc_id      = var.vpc_id

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group" "database" {
  count       = var.create_security_groups ? 1 : 0
  name_prefix = "${var.name}-db-"
  description = "Exactly database: in from the RDS Proxy and the migrate step on 5432"
  vpc_id      = var.vpc_id

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_egress_rule" "function_to_proxy" {
  count                        = var.create_security_groups ? 1 : 0
  security_group_id            = aws_security_group.function[0].id
  description                  = "PostgreSQL through the RDS Proxy"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.proxy[0].id
}

resource "aws_vpc_security_group_egress_rule" "function_to_database" {
  count                        = var.create_security_groups ? 1 : 0
  security_group_id            = aws_security_group.function[0].id
  description                  = "PostgreSQL directly (the migrate step, as the master user)"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.database[0].id
}

resource "aws_vpc_security_group_egress_rule" "function_to_https" {
  count             = var.create_security_groups ? 1 : 0
  security_group_id = aws_security_group.function[0].id
  description       = "HTTPS: Secrets Manager (NAT gateway or interface VPC endpoint)"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_vpc_security_group_ingress_rule" "proxy_from_function" {
  count                        = var.create_security_groups ? 1 : 0
  security_group_id            = aws_security_group.proxy[0].id
  description                  = "PostgreSQL from the functions"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.function[0].id
}

resource "aws_vpc_security_group_egress_rule" "proxy_to_database" {
  count                        = var.create_security_groups ? 1 : 0
  security_group_id            = aws_security_group.proxy[0].id
  description                  = "PostgreSQL to the database"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.database[0].id
}

resource "aws_vpc_security_group_ingress_rule" "database_from_proxy" {
  count                        = var.create_security_groups ? 1 : 0
  security_group_id            = aws_security_group.database[0].id
  description                  = "PostgreSQL from the RDS Proxy"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.proxy[0].id
}

resource "aws_vpc_security_group_ingress_rule" "database_from_function" {
  count                        = var.create_security_groups ? 1 : 0
  security_group_id            = aws_security_group.database[0].id
  description                  = "PostgreSQL from the functions (the migrate step)"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.function[0].id
}
