# Exactly on AWS: Lambda (JVM, SnapStart) behind an API Gateway HTTP API, PostgreSQL on RDS behind
# an RDS Proxy. See README.md, "Deploy".
terraform {
  required_version = ">= 1.9.0, < 2.0.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
    random = {
      source  = "hashicorp/random"
      version = "~> 3.7"
    }
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = var.tags
  }
}
