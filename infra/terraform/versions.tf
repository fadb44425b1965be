# Exactly on AWS: the Lambda shape (JVM, SnapStart) behind an API Gateway HTTP API, PostgreSQL on
# RDS behind an RDS Proxy. docs/deploy-aws.md is the guide. The module needs only the AWS
# provider: no random provider (secrets are made by RDS, by the migrate step or by you) and no
# external data source, so `terraform plan` works offline against a provider mirror.
terraform {
  # 1.11: write-only arguments (secret_string_wo) and ephemeral input variables (1.10), so the
  # webhook signing secrets reach Secrets Manager without entering state or plan files.
  required_version = ">= 1.11.0, < 2.0.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = var.tags
  }
}
