package dev.exactly.lambda.secrets;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Optional;

/**
 * The Lambda shape's Secrets Manager settings ({@code exactly.secrets.*}), as infra/terraform
 * sets them: in the environment (document, endpoint, region) or in the settings document itself
 * (the database secrets). Declared here so the application knows every key it is given; the
 * config source ({@link SecretsManagerConfigSourceFactory}) reads the first four before this
 * mapping exists.
 */
@ConfigMapping(prefix = "exactly.secrets")
public interface SecretsConfig {

    /** {@value SecretsManagerConfigSourceFactory#DOCUMENT}: the settings document's secret (ARN). */
    Optional<String> document();

    /** {@value SecretsManagerConfigSourceFactory#PROPERTIES}: config key to secret, as JSON. */
    Optional<String> properties();

    /** {@value SecretsManagerConfigSourceFactory#ENDPOINT}: a Secrets Manager endpoint URL replacing AWS's (tests). */
    Optional<String> endpoint();

    /** {@value SecretsManagerConfigSourceFactory#REGION}: the region; default AWS_REGION. */
    Optional<String> region();

    /** {@value dev.exactly.lambda.db.DatabaseCredentials#SECRET}: the application role's secret, read when a connection opens. */
    Optional<String> database();

    /** {@value dev.exactly.lambda.schema.OnDemandFlyway#ADMIN_SECRET}: the master user's secret, read by the migrate step. */
    Optional<String> databaseAdmin();

    /** {@value dev.exactly.lambda.schema.OnDemandFlyway#ADMIN_URL}: where the migrate step connects (the instance, not the proxy). */
    Optional<String> databaseAdminUrl();

    /** {@value dev.exactly.lambda.schema.OnDemandFlyway#APP_USER}: the application role the migrate step makes. */
    @WithDefault("exactly_app")
    String databaseAppUser();
}
