package dev.exactly.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.bertramlabs.plugins.hcl4j.HCLParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Offline checks of infra/terraform (no network here, so no terraform init/validate/plan): every
 * .tf file is parsed with an HCL parser (hcl4j) and held against the build and the application.
 * References come back from the parser as text ("var.name", "aws_lambda_alias.live.invoke_arn");
 * function calls come back as null.
 */
class TerraformConfigTest {

    static final Path DIR = Path.of("infra", "terraform");
    static final String HANDLER = "dev.exactly.lambda.FunctionHandler::handleRequest";

    private static final Map<String, Map<String, Object>> FILES = new HashMap<>();
    private static final Map<String, String> TEXT = new HashMap<>();

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void parse() throws Exception {
        try (Stream<Path> s = Files.walk(DIR)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".tf") && !f.toString().contains(".terraform")).toList()) {
                FILES.put(p.getFileName().toString(), new HCLParser().parse(p.toFile(), "UTF-8"));
                TEXT.put(p.getFileName().toString(), Files.readString(p));
            }
        }
        assertTrue(FILES.keySet().containsAll(List.of("versions.tf", "variables.tf", "outputs.tf")), FILES.keySet().toString());
    }

    // --- structure helpers ------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map ? (Map<String, Object>) o : Map.of();
    }

    /** Every block of one kind (resource, variable, output, ...) merged across files: type -> name -> body. */
    private static Map<String, Object> blocks(String kind) {
        Map<String, Object> out = new HashMap<>();
        FILES.values().forEach(f -> map(f.get(kind)).forEach((k, v) -> {
            if (v instanceof Map && out.get(k) instanceof Map) {
                Map<String, Object> merged = new HashMap<>(map(out.get(k)));
                merged.putAll(map(v));
                out.put(k, merged);
            } else {
                out.put(k, v);
            }
        }));
        return out;
    }

    private static Map<String, Object> resource(String type, String name) {
        Map<String, Object> r = map(map(blocks("resource").get(type)).get(name));
        assertFalse(r.isEmpty(), "resource " + type + "." + name + " must exist");
        return r;
    }

    private static Map<String, Object> onlyResource(String type) {
        Map<String, Object> all = map(blocks("resource").get(type));
        assertEquals(1, all.size(), "exactly one " + type);
        return map(all.values().iterator().next());
    }

    private static Object variableDefault(String name) {
        Map<String, Object> v = map(blocks("variable").get(name));
        assertFalse(v.isEmpty(), "variable " + name + " must be declared");
        return v.get("default");
    }

    private static String stripComments(String hcl) {
        StringBuilder b = new StringBuilder();
        for (String line : hcl.split("\n")) {
            String l = line.trim();
            if (!l.startsWith("#") && !l.startsWith("//")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    // --- the checks ---------------------------------------------------------------------------

    @Test
    void everyVariableUsedIsDeclaredAndEveryDeclaredOneIsUsed() {
        Set<String> declared = blocks("variable").keySet();
        Set<String> used = new TreeSet<>();
        Matcher m = Pattern.compile("\\bvar\\.([A-Za-z_][A-Za-z0-9_-]*)").matcher("");
        TEXT.values().forEach(t -> {
            m.reset(stripComments(t));
            while (m.find()) {
                used.add(m.group(1));
            }
        });
        Set<String> undeclared = new TreeSet<>(used);
        undeclared.removeAll(declared);
        assertEquals(Set.of(), undeclared, "var.X used but not declared in variables.tf");
        Set<String> unused = new TreeSet<>(declared);
        unused.removeAll(used);
        assertEquals(Set.of(), unused, "declared but never used");
        blocks("variable").forEach((name, body) ->
                assertNotNull(map(body).get("description"), "variable " + name + " needs a description"));
    }

    @Test
    void providersArePinned() {
        Map<String, Object> terraform = map(FILES.get("versions.tf").get("terraform"));
        assertNotNull(terraform.get("required_version"), "terraform required_version");
        Map<String, Object> aws = map(map(terraform.get("required_providers")).get("aws"));
        assertEquals("hashicorp/aws", aws.get("source"));
        assertTrue(String.valueOf(aws.get("version")).matches("~> \\d+\\.\\d+.*"), "aws provider pinned: " + aws.get("version"));
    }

    @Test
    void functionMatchesTheBuild() {
        Map<String, Object> fn = onlyResource("aws_lambda_function");
        assertEquals(HANDLER, fn.get("handler"), "the function's handler (FunctionZipIT finds it in function.zip; LambdaRuntimeIT runs it)");
        assertEquals(HANDLER, map(FILES.get("function.tf").get("locals")).get("handler"));
        assertEquals("var.function_zip", String.valueOf(fn.get("filename")));
        Path zip = DIR.resolve(String.valueOf(variableDefault("function_zip"))).normalize();
        assertEquals(Path.of("target", "function.zip"), zip, "the zip the lambda Maven profile builds");
        assertEquals("var.lambda_runtime", String.valueOf(fn.get("runtime")));
        assertTrue(List.of("java17", "java21", "java25").contains(String.valueOf(variableDefault("lambda_runtime"))));
        assertTrue(((Number) variableDefault("lambda_memory_mb")).intValue() >= 512);
        assertNotNull(fn.get("timeout"));
        assertNotNull(map(fn.get("vpc_config")).get("subnet_ids"), "the function runs in the VPC");
    }

    @Test
    void theFunctionsLogFormatIsJsonAsTheLambdaShapeWritesIt() throws IOException {
        Map<String, Object> logging = map(onlyResource("aws_lambda_function").get("logging_config"));
        assertEquals("JSON", logging.get("log_format"),
                "the Lambda shape writes one JSON object per line: the function's log format must say JSON");
        assertEquals("aws_cloudwatch_log_group.function.name", String.valueOf(logging.get("log_group")),
                "into the log group whose retention the module sets");
        Properties app = applicationProperties();
        assertEquals("true", app.getProperty("%lambda.quarkus.log.console.json.enabled"),
                "QUARKUS_PROFILE=lambda turns on Quarkus' JSON console format");
        assertEquals("lambda", environment().get("QUARKUS_PROFILE").replace("\"", ""), "the function runs the lambda profile");
    }

    @Test
    void snapStartOnPublishedVersionsBehindAnAlias() {
        Map<String, Object> fn = onlyResource("aws_lambda_function");
        assertEquals("PublishedVersions", map(fn.get("snap_start")).get("apply_on"));
        assertEquals(Boolean.TRUE, fn.get("publish"), "SnapStart applies only to published versions");
        Map<String, Object> alias = onlyResource("aws_lambda_alias");
        assertEquals("aws_lambda_function.this.version", String.valueOf(alias.get("function_version")));
    }

    @Test
    void httpApiUsesPayloadFormat2ToTheAlias() {
        assertEquals("HTTP", onlyResource("aws_apigatewayv2_api").get("protocol_type"));
        Map<String, Object> integration = onlyResource("aws_apigatewayv2_integration");
        assertEquals("2.0", integration.get("payload_format_version"));
        assertEquals("AWS_PROXY", integration.get("integration_type"));
        assertEquals("aws_lambda_alias.live.invoke_arn", String.valueOf(integration.get("integration_uri")));
        assertEquals("$default", onlyResource("aws_apigatewayv2_route").get("route_key"));
        Map<String, Object> permission = resource("aws_lambda_permission", "api");
        assertEquals("apigateway.amazonaws.com", permission.get("principal"));
        assertEquals("aws_lambda_alias.live.name", String.valueOf(permission.get("qualifier")));
    }

    @Test
    void databaseProxyLogsAndSchedule() {
        Map<String, Object> db = onlyResource("aws_db_instance");
        assertEquals("postgres", db.get("engine"));
        assertTrue(Set.of("16", "17").contains(String.valueOf(variableDefault("postgres_version")).split("\\.")[0]));
        assertEquals(Boolean.FALSE, db.get("publicly_accessible"));
        assertNotNull(db.get("db_subnet_group_name"));
        Map<String, Object> proxy = onlyResource("aws_db_proxy");
        assertEquals(Boolean.TRUE, proxy.get("require_tls"));
        assertEquals("aws_secretsmanager_secret.db.arn", String.valueOf(map(proxy.get("auth")).get("secret_arn")));
        assertNotNull(map(onlyResource("aws_cloudwatch_log_group")).get("retention_in_days"));
        Map<String, Object> rule = onlyResource("aws_cloudwatch_event_rule");
        assertEquals("var.maintenance_schedule", String.valueOf(rule.get("schedule_expression")));
        assertEquals("aws_lambda_alias.live.arn", String.valueOf(onlyResource("aws_cloudwatch_event_target").get("arn")));
        assertEquals("events.amazonaws.com", resource("aws_lambda_permission", "maintenance").get("principal"));
    }

    /**
     * The schedule's target stores nothing secret (events:ListTargetsByRule shows a target's
     * input): it sets no input at all, so EventBridge sends its own scheduled event, which the
     * function's handler runs maintenance for without an API key; and no maintenance key exists.
     */
    @Test
    void theScheduleSendsEventBridgesOwnEventWithNoKey() {
        Map<String, Object> target = onlyResource("aws_cloudwatch_event_target");
        for (String input : List.of("input", "input_path", "input_transformer")) {
            assertFalse(target.containsKey(input), "the maintenance target sets no " + input + ": " + target);
        }
        String all = String.join("\n", TEXT.values().stream().map(TerraformConfigTest::stripComments).toList());
        assertFalse(all.contains("maintenance_key"), "no maintenance key is generated or sent");
        assertFalse(stripComments(TEXT.get("schedule.tf")).contains("authorization"), "no credential in schedule.tf");
        assertEquals("events.amazonaws.com", resource("aws_lambda_permission", "maintenance").get("principal"));
    }

    @Test
    void theDatabaseUrlRequiresTls() {
        String url = environment().get("QUARKUS_DATASOURCE_REACTIVE_URL");
        assertTrue(url.startsWith("\"postgresql://${aws_db_proxy.this.endpoint}:5432/"), url);
        assertTrue(url.endsWith("?sslmode=require\""), url);
    }

    // --- the function's environment -----------------------------------------------------------

    /**
     * The function's environment as written in function.tf: the literal variables of its
     * environment block (name -> expression text). hcl4j gives no value for the merge() around
     * them, so they are read from the text.
     */
    private static Map<String, String> environment() {
        String fn = stripComments(TEXT.get("function.tf"));
        int start = fn.indexOf("environment {");
        assertTrue(start >= 0, "function.tf has an environment block");
        String block = fn.substring(start, fn.indexOf("\n  }\n", start));
        Map<String, String> vars = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^\\s*([A-Z][A-Z0-9_]*)\\s*=\\s*(.+)$").matcher(block);
        while (m.find()) {
            vars.put(m.group(1), m.group(2).trim());
        }
        assertTrue(vars.containsKey("QUARKUS_PROFILE"), block);
        assertTrue(block.contains("}, local.webhook_environment)"), "the webhook sources' variables are merged in: " + block);
        return vars;
    }

    /** The options secrets.tf writes per webhook source, as EXACTLY_WEBHOOKS_SOURCES_<NAME>_<OPTION>. */
    private static List<String> webhookSuffixes() {
        String tf = stripComments(TEXT.get("secrets.tf"));
        int start = tf.indexOf("for option, value in {");
        int end = tf.indexOf("} : format(\"EXACTLY_WEBHOOKS_SOURCES_%s_%s\", upper(name), option) => value if value != null", start);
        assertTrue(start >= 0 && end > start, "secrets.tf maps each source option to EXACTLY_WEBHOOKS_SOURCES_<NAME>_<OPTION>");
        Matcher m = Pattern.compile("(?m)^\\s*([A-Z][A-Z0-9_]*)\\s*=").matcher(tf.substring(start, end));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        assertTrue(out.contains("PRESET"), "secrets.tf writes each source's preset: " + out);
        return out;
    }

    /**
     * No environment variable carries a secret: the database credentials and webhook secrets are
     * named by ARN in EXACTLY_SECRETS_PROPERTIES (the function reads them from Secrets Manager),
     * and nothing in the environment block reads a secret's value, a generated password or the
     * webhook_secrets variable.
     */
    @Test
    void noEnvironmentVariableCarriesASecretValue() {
        Map<String, String> env = environment();
        List<String> found = new ArrayList<>();
        Pattern secretValue = Pattern.compile("secret_string|random_password\\.(?!api_key)|var\\.webhook_secrets|jsondecode|db_credentials|password");
        env.forEach((k, v) -> {
            if (secretValue.matcher(v).find()) {
                found.add(k + " = " + v);
            }
        });
        assertEquals(List.of(), found, "environment variables reading a secret's value");
        assertEquals(Set.of("JAVA_TOOL_OPTIONS", "QUARKUS_PROFILE", "QUARKUS_DATASOURCE_REACTIVE_URL", "EXACTLY_AUTH_API_KEY_SHA256",
                        "EXACTLY_SECRETS_PROPERTIES", "EXACTLY_SECRETS_VERSION"),
                env.keySet(), "the function's literal environment");
        assertEquals("join(\",\", local.api_key_sha256)", env.get("EXACTLY_AUTH_API_KEY_SHA256"), "API keys only as digests");
        assertTrue(stripComments(TEXT.get("function.tf")).contains("sha256(random_password.api_key.result)"));
        assertEquals("jsonencode(local.secret_properties)", env.get("EXACTLY_SECRETS_PROPERTIES"));
        assertTrue(TEXT.get("secrets.tf").contains("\"quarkus.datasource.password\" = \"${aws_secretsmanager_secret.db.arn}#password\""),
                "the database password by reference");
        assertTrue(TEXT.get("secrets.tf").contains("format(\"exactly.webhooks.sources.%s.secret\", name) => arn }"),
                "each webhook secret by reference");
        String webhookEnv = TEXT.get("secrets.tf").substring(TEXT.get("secrets.tf").indexOf("webhook_environment = merge(["));
        webhookEnv = webhookEnv.substring(0, webhookEnv.indexOf("]...)"));
        assertFalse(webhookEnv.contains("secret"), "a source's variables carry no secret: " + webhookEnv);
        assertFalse(TEXT.get("variables.tf").isEmpty());
        assertEquals(Boolean.TRUE, map(blocks("variable").get("webhook_secrets")).get("sensitive"), "webhook_secrets is sensitive");
    }

    /**
     * A secret changed through Terraform reaches the function: it reads secrets only when a
     * version starts, so the version ids of every secret the module writes (the database's and
     * each created webhook secret's; never their values) and var.secrets_revision (for secrets
     * referenced by secret_arn) are in its environment, and a new secret version changes the
     * function's configuration, which publishes a new version (publish = true) that the alias
     * follows.
     */
    @Test
    void aChangedSecretPublishesANewVersion() {
        assertEquals("join(\",\", local.secret_version_ids)", environment().get("EXACTLY_SECRETS_VERSION"));
        String secrets = stripComments(TEXT.get("secrets.tf"));
        int start = secrets.indexOf("secret_version_ids = concat(");
        assertTrue(start >= 0, "secrets.tf defines secret_version_ids");
        String ids = secrets.substring(start, secrets.indexOf("\n  )\n", start));
        assertTrue(ids.contains("aws_secretsmanager_secret_version.db.version_id"), ids);
        assertTrue(ids.contains("[for name in sort(keys(local.created_webhook_secrets)) : aws_secretsmanager_secret_version.webhook[name].version_id]"), ids);
        assertTrue(ids.contains("var.secrets_revision"), ids);
        assertFalse(ids.contains("secret_string") || ids.contains("var.webhook_secrets"), "version ids, never values: " + ids);
        assertEquals("", variableDefault("secrets_revision"));
        Map<String, Object> fn = resource("aws_lambda_function", "this");
        assertEquals(Boolean.TRUE, fn.get("publish"), "a configuration change publishes a version");
        assertEquals("aws_lambda_function.this.version", String.valueOf(resource("aws_lambda_alias", "live").get("function_version")));
        String all = String.join("\n", TEXT.values());
        assertFalse(all.contains("-replace=aws_lambda_function"), "no advice to replace the function (it drops the alias and permissions)");
    }

    /**
     * The function may read exactly its secrets: the ones its environment names (the database
     * secret and each webhook source's), with GetSecretValue only, and no statement grants
     * Secrets Manager on anything else.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theFunctionReadsExactlyItsSecrets() {
        Map<String, Object> policy = map(map(blocks("data").get("aws_iam_policy_document")).get("function"));
        Object statements = policy.get("statement");
        List<Map<String, Object>> list = statements instanceof List<?> l ? (List<Map<String, Object>>) l : List.of(map(statements));
        List<Map<String, Object>> secretStatements = list.stream()
                .filter(st -> String.valueOf(st.get("actions")).contains("secretsmanager")).toList();
        assertEquals(1, secretStatements.size(), "one statement grants Secrets Manager: " + list);
        Map<String, Object> st = secretStatements.get(0);
        assertEquals(List.of("secretsmanager:GetSecretValue"), st.get("actions"));
        assertEquals("local.function_secret_arns", String.valueOf(st.get("resources")), "exactly the function's secrets");
        String secrets = stripComments(TEXT.get("secrets.tf"));
        assertTrue(secrets.contains("function_secret_arns = concat([aws_secretsmanager_secret.db.arn], values(local.webhook_secret_arns))"),
                "the policy's secrets are the database secret and the webhook secrets");
        // every secret the environment names is one of them: secret_properties references only these two
        String props = secrets.substring(secrets.indexOf("secret_properties = merge("), secrets.indexOf("function_secret_arns ="));
        Matcher arn = Pattern.compile("\\$\\{([a-z_.]+)\\}|=> ([a-z_.]+) \\}").matcher(props);
        Set<String> referenced = new TreeSet<>();
        while (arn.find()) {
            referenced.add(arn.group(1) != null ? arn.group(1) : arn.group(2));
        }
        assertEquals(Set.of("aws_secretsmanager_secret.db.arn", "arn"), referenced, props);
        assertTrue(props.contains("for name, arn in local.webhook_secret_arns"), props);
    }

    @Test
    void poolConnectionsDieBeforeTheProxyDropsThem() throws IOException {
        Properties app = applicationProperties();
        Duration maxLifetime = Duration.parse(app.getProperty("%lambda.quarkus.datasource.reactive.max-lifetime"));
        Duration idle = Duration.parse(app.getProperty("%lambda.quarkus.datasource.reactive.idle-timeout"));
        long proxyIdle = ((Number) variableDefault("proxy_idle_client_timeout_seconds")).longValue();
        assertEquals("var.proxy_idle_client_timeout_seconds", String.valueOf(onlyResource("aws_db_proxy").get("idle_client_timeout")));
        assertTrue(maxLifetime.toSeconds() < proxyIdle, "max-lifetime " + maxLifetime + " vs proxy " + proxyIdle + " s");
        assertTrue(idle.toSeconds() < proxyIdle, "idle-timeout " + idle + " vs proxy " + proxyIdle + " s");
        assertTrue(Integer.parseInt(app.getProperty("%lambda.quarkus.datasource.reactive.max-size")) <= 2);
    }

    @Test
    void everyEnvironmentVariableIsARealConfigKey() throws Exception {
        Map<String, String> vars = environment();
        Map<String, String> known = new HashMap<>(); // environment form -> where it comes from
        quarkusRuntimeKeys(known);
        applicationKeys(known);
        // read by the Lambda shape's Secrets Manager config source (src/lambda/java, not compiled here)
        known.put(env("exactly.secrets.properties"), "exactly.secrets.properties");
        // read by nothing: its change (new secret versions) makes apply publish a new version
        known.put("EXACTLY_SECRETS_VERSION", "secrets.tf, secret_version_ids");
        // read by the JVM itself (LambdaRuntimeIT starts the function with the same value)
        known.put("JAVA_TOOL_OPTIONS", "the JVM");
        List<String> unknown = new ArrayList<>();
        for (String env : vars.keySet()) {
            if (!known.containsKey(env)) {
                unknown.add(env);
            }
        }
        // each webhook source's options: exactly.webhooks.sources.<name>.* (a source named "x")
        Map<String, String> sourceKeys = new HashMap<>();
        mappingKeys(dev.exactly.webhook.WebhooksConfig.Source.class, "exactly.webhooks.sources.x", sourceKeys);
        for (String suffix : webhookSuffixes()) {
            if (!sourceKeys.containsKey("EXACTLY_WEBHOOKS_SOURCES_X_" + suffix)) {
                unknown.add("EXACTLY_WEBHOOKS_SOURCES_<name>_" + suffix);
            }
        }
        assertEquals(List.of(), unknown, "environment variables that no config key of the app reads");
        assertTrue(applicationProperties().stringPropertyNames().stream()
                        .anyMatch(k -> k.startsWith("%" + vars.get("QUARKUS_PROFILE").replace("\"", "") + ".")),
                "QUARKUS_PROFILE names a profile application.properties configures");
    }

    @Test
    void noLiteralSecrets() {
        Pattern sensitive = Pattern.compile("(?i).*(password|secret|token|api_?key|private_?key|access_?key|authorization).*");
        Pattern reference = Pattern.compile(".*\\b(var|local|data|random_password|aws_[a-z0-9_]+)\\.[A-Za-z0-9_]+.*", Pattern.DOTALL);
        List<String> found = new ArrayList<>();
        // references and function calls are not Strings in the parsed tree; only literals are
        FILES.forEach((file, tree) -> walk(file, tree, (path, key, value) -> {
            if (value instanceof String s && sensitive.matcher(key).matches() && !s.isEmpty()
                    && !reference.matcher(s).matches() && !key.endsWith("_arn") && !key.endsWith("_type") && !key.equals("description")) {
                found.add(path + " = \"" + s + "\"");
            }
        }));
        blocks("variable").forEach((name, body) -> {
            if (sensitive.matcher(name).matches() && map(body).get("default") instanceof String d && !d.isEmpty()) {
                found.add("variable " + name + " has a default");
            }
        });
        TEXT.forEach((file, text) -> {
            if (Pattern.compile("AKIA[0-9A-Z]{16}|-----BEGIN|\"Bearer [A-Za-z0-9_-]{8,}\"").matcher(text).find()) {
                found.add(file + " holds a key, a private key or a bearer token");
            }
        });
        assertEquals(List.of(), found, "literal secrets in infra/terraform");
    }

    // --- webhook sources -----------------------------------------------------------------------

    /** The fields of webhook_sources' object type, as written in variables.tf. */
    private static List<String> webhookSourceFields() {
        String tf = stripComments(TEXT.get("variables.tf"));
        int start = tf.indexOf("type = map(object({", tf.indexOf("variable \"webhook_sources\""));
        int end = tf.indexOf("}))", start);
        assertTrue(start >= 0 && end > start, "webhook_sources is a map(object({...}))");
        Matcher m = Pattern.compile("(?m)^\\s*([a-z_]+)\\s*=").matcher(tf.substring(start + "type = map(object({".length(), end));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /**
     * Every setting a source has in the application (exactly.webhooks.sources.<name>.*, but the
     * secret, which goes through Secrets Manager) can be set from Terraform: a field of
     * webhook_sources that secrets.tf writes as that setting's environment variable.
     */
    @Test
    void everySourceSettingCanBeSetFromTerraform() {
        Map<String, String> sourceKeys = new HashMap<>();
        mappingKeys(dev.exactly.webhook.WebhooksConfig.Source.class, "exactly.webhooks.sources.x", sourceKeys);
        Set<String> settings = new TreeSet<>();
        sourceKeys.keySet().forEach(k -> settings.add(k.substring("EXACTLY_WEBHOOKS_SOURCES_X_".length())));
        settings.remove("SECRET");
        Set<String> written = new TreeSet<>(webhookSuffixes());
        Set<String> missing = new TreeSet<>(settings);
        missing.removeAll(written);
        assertEquals(Set.of(), missing, "source settings Terraform cannot set");
        Set<String> fromFields = new TreeSet<>();
        for (String field : webhookSourceFields()) {
            if (!field.equals("secret_arn")) {
                fromFields.add(field.equals("partition") ? "PARTITION_NAME" : field.toUpperCase(Locale.ROOT));
            }
        }
        assertEquals(written, fromFields, "each field of webhook_sources is written as its own setting");
        assertTrue(TEXT.get("secrets.tf").contains("NOTIFICATION_URL   = s.notification_url != null ? s.notification_url : "
                + "(coalesce(s.signature, s.preset) == \"square\" ? local.webhook_urls[name] : null)"),
                "a square source's notification URL defaults to its own webhook URL");
    }

    /**
     * A source that checks a signature and has neither secret_arn nor an entry in webhook_secrets
     * is refused by a validation of webhook_sources that names it (cross-variable validation:
     * Terraform 1.9), not by an "Invalid index" on var.webhook_secrets; the same rule decides
     * which sources get a secret in secrets.tf.
     */
    @Test
    void aSignedSourceWithoutASecretIsAValidationError() {
        String vars = stripComments(TEXT.get("variables.tf"));
        String rule = "coalesce(s.signature, s.preset == \"generic\" ? \"none\" : s.preset) != \"none\"";
        Matcher v = Pattern.compile("validation \\{\\s*condition\\s*=\\s*(.*)\\n\\s*error_message\\s*=\\s*(.*)\\n").matcher(vars);
        String condition = null;
        String message = null;
        while (v.find()) {
            if (v.group(1).contains("keys(var.webhook_secrets)")) {
                condition = v.group(1);
                message = v.group(2);
            }
        }
        assertNotNull(condition, "a validation of webhook_sources reads var.webhook_secrets");
        assertTrue(condition.contains(rule) && condition.contains("s.secret_arn == null")
                && condition.contains("contains(nonsensitive(keys(var.webhook_secrets)), name)"), condition);
        assertTrue(message.contains("no signing secret for ${join(\", \", [for name, s in var.webhook_sources : name if " + rule), message);
        assertTrue(String.valueOf(map(FILES.get("versions.tf").get("terraform")).get("required_version")).startsWith(">= 1.9"),
                "cross-variable validation needs Terraform 1.9");
        String secrets = stripComments(TEXT.get("secrets.tf"));
        assertTrue(secrets.contains("if " + rule), "secrets.tf: the signed sources by the same rule");
        assertTrue(secrets.contains("created_webhook_secrets = { for name, s in local.signed_webhook_sources : name => s if s.secret_arn == null }"));
        assertTrue(secrets.contains("for name, s in local.signed_webhook_sources :"), "only signed sources have a secret ARN");
    }

    /**
     * terraform.tfvars.example plans as docs/deploy-aws.md's first apply runs it: every active signed source
     * (every preset; generic unless signature = "none") has secret_arn, or its name in the
     * TF_VAR_webhook_secrets that the example tells to export for the first apply (Stripe's
     * secret exists only once its endpoint does, so the stripe entry stays commented out).
     */
    @Test
    @SuppressWarnings("unchecked")
    void theExampleVariablesPlanOnTheFirstApply() throws Exception {
        Path example = DIR.resolve("terraform.tfvars.example");
        Map<String, Object> vars = new HCLParser().parse(example.toFile(), "UTF-8");
        Map<String, Object> sources = map(vars.get("webhook_sources"));
        assertFalse(sources.isEmpty(), "the example shows webhook sources");
        Matcher export = Pattern.compile("export TF_VAR_webhook_secrets='(\\{[^']*\\})'").matcher(Files.readString(example));
        assertTrue(export.find(), "the example says which secrets to export first");
        Set<String> firstSecrets = new TreeSet<>();
        new ObjectMapper().readTree(export.group(1)).fieldNames().forEachRemaining(firstSecrets::add);
        List<String> missing = new ArrayList<>();
        sources.forEach((name, body) -> {
            Map<String, Object> src = map(body);
            String preset = String.valueOf(src.get("preset"));
            Object signature = src.get("signature");
            boolean signed = signature != null ? !"none".equals(signature) : !"generic".equals(preset);
            if (signed && src.get("secret_arn") == null && !firstSecrets.contains(name)) {
                missing.add(name);
            }
        });
        assertEquals(List.of(), missing, "active sources without a secret on the first apply (first export: " + firstSecrets + ")");
        assertFalse(sources.containsKey("stripe"), "the stripe entry waits for Stripe's endpoint secret");
        assertTrue(Files.readString(example).contains("# stripe = {"), "the stripe entry is shown, commented out");
    }

    /**
     * The optional settings terraform.tfvars.example shows commented out, one "# name = value" per
     * line after its "# Optional" line, are variables of variables.tf shown with their defaults:
     * uncommenting one changes nothing until its value is edited.
     */
    @Test
    void theExamplesOptionalSettingsAreVariablesWithTheirDefaults() throws Exception {
        List<String> lines = Files.readAllLines(DIR.resolve("terraform.tfvars.example"));
        int from = 0;
        while (from < lines.size() && !lines.get(from).startsWith("# Optional")) {
            from++;
        }
        assertTrue(from < lines.size(), "the example has an # Optional section");
        Pattern setting = Pattern.compile("^# ([a-z0-9_]+)\\s*=\\s*(\"[^\"]*\"|[^\\s#]+)\\s*(#.*)?$");
        Map<String, Object> shown = new LinkedHashMap<>();
        for (int i = from + 1; i < lines.size() && !lines.get(i).isBlank(); i++) {
            Matcher m = setting.matcher(lines.get(i));
            assertTrue(m.matches(), "not a commented setting: " + lines.get(i));
            shown.putAll(new HCLParser().parse(m.group(1) + " = " + m.group(2) + "\n"));
        }
        assertTrue(shown.containsKey("lambda_runtime"), "the example shows lambda_runtime: " + shown.keySet());
        shown.forEach((name, value) -> assertEquals(variableDefault(name), value, name));
    }

    /**
     * Values the function would refuse or leave disabled at start-up are refused by plan: queue
     * and partition names by the application's own name rule (dev.exactly.naming.Names), JSON
     * Pointers that do not start with '/', a secret_arn that is not a Secrets Manager ARN (the
     * role is granted ARNs), an empty webhook secret; and kms_key_arn grants kms:Decrypt on that
     * key, through Secrets Manager only, when set.
     */
    @Test
    void planRefusesWhatTheFunctionWouldRefuse() {
        String vars = stripComments(TEXT.get("variables.tf"));
        Matcher name = Pattern.compile("for n in \\[s\\.queue, s\\.partition\\] : n == null \\|\\| can\\(regex\\(\"\\^([^\"]+)\\$\", n\\)\\)").matcher(vars);
        assertTrue(name.find(), "a validation of queue and partition names");
        assertEquals(dev.exactly.naming.Names.NAME_CHARACTERS, name.group(1), "the same rule as the application's");
        assertTrue(vars.contains("can(regex(\"^" + dev.exactly.naming.Names.NAME_CHARACTERS + "$\", n)) && !contains([\".\", \"..\"], coalesce(n, \"-\"))"),
                "and no dot segment, as the application's (RE2 has no lookahead)");
        assertTrue(vars.contains("for p in [s.key_pointer, s.partition_pointer] : p == null || startswith(coalesce(p, \"/\"), \"/\")"),
                "JSON Pointers start with '/'");
        Matcher arn = Pattern.compile("s\\.secret_arn == null \\|\\| can\\(regex\\(\"([^\"]+)\"").matcher(vars);
        assertTrue(arn.find(), "a validation of secret_arn");
        Pattern secretArn = Pattern.compile(arn.group(1));
        assertTrue(secretArn.matcher("arn:aws:secretsmanager:eu-west-1:123456789012:secret:exactly-webhook-github-AbCdEf").matches());
        assertTrue(secretArn.matcher("arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:x-AbCdEf").matches());
        assertFalse(secretArn.matcher("exactly-webhook-github").matches());
        assertFalse(secretArn.matcher("arn:aws:kms:eu-west-1:123456789012:key/abc").matches());
        assertTrue(vars.contains("condition     = nonsensitive(alltrue([for v in values(var.webhook_secrets) : trimspace(v) != \"\"]))"),
                "an empty webhook secret is refused");
        assertEquals(null, variableDefault("kms_key_arn"));
        String iam = stripComments(TEXT.get("iam.tf"));
        assertTrue(iam.contains("for_each = var.kms_key_arn == null ? [] : [var.kms_key_arn]"), iam);
        assertTrue(iam.contains("actions   = [\"kms:Decrypt\"]") && iam.contains("variable = \"kms:ViaService\"")
                && iam.contains("values   = [\"secretsmanager.${var.region}.amazonaws.com\"]"), iam);
    }

    /** api_url has no trailing slash ($URL/api/v1/push would have two), and the webhook URLs are built on it. */
    @Test
    void theApiUrlHasNoTrailingSlash() {
        Map<String, Object> outputs = blocks("output");
        assertEquals("local.api_url", String.valueOf(map(outputs.get("api_url")).get("value")));
        assertEquals("local.webhook_urls", String.valueOf(map(outputs.get("webhook_urls")).get("value")));
        Map<String, Object> locals = map(FILES.get("api.tf").get("locals"));
        assertEquals("aws_apigatewayv2_api.this.api_endpoint", String.valueOf(locals.get("api_url")),
                "the HTTP API's endpoint (https://{api-id}.execute-api.{region}.amazonaws.com), not the stage's invoke_url ending in /");
        assertTrue(TEXT.get("api.tf").contains("name => format(\"%s/webhooks/%s\", local.api_url, name)"), TEXT.get("api.tf"));
    }

    /**
     * The Lambda shape's body limit fits a synchronous invocation (6 MB, 6291456 bytes: AWS Lambda
     * quotas) once API Gateway has put the body into the event as a JSON string (each quote or
     * backslash two bytes) or in base64, with 64 KiB left for the event's other fields; a source's
     * max_body_bytes is validated against the same figure.
     */
    @Test
    void theLambdaBodyLimitFitsTheInvocationPayload() throws IOException {
        Properties app = applicationProperties();
        long push = Long.parseLong(app.getProperty("%lambda.exactly.push.max-body-bytes"));
        assertEquals((6_291_456 - 65_536) / 2, push);
        assertEquals(push, Long.parseLong(app.getProperty("%lambda.exactly.tasks.max-body-bytes")));
        assertTrue(stripComments(TEXT.get("variables.tf")).contains("coalesce(s.max_body_bytes, 1) <= " + push),
                "webhook_sources' max_body_bytes is bounded by the function's limit");
    }

    // --- config keys --------------------------------------------------------------------------

    /** Runtime keys of every Quarkus extension on the classpath, from its shipped config model. */
    private static void quarkusRuntimeKeys(Map<String, String> known) throws IOException {
        ObjectMapper json = new ObjectMapper();
        int models = 0;
        for (URL u : Collections.list(TerraformConfigTest.class.getClassLoader()
                .getResources("META-INF/quarkus-config-doc/quarkus-config-model.json"))) {
            models++;
            try (InputStream in = u.openStream()) {
                collect(json.readTree(in), known);
            }
        }
        assertTrue(models > 5, "the Quarkus config models must be on the test classpath");
        assertTrue(known.containsKey("QUARKUS_DATASOURCE_USERNAME"), "the model reader works");
    }

    private static void collect(JsonNode node, Map<String, String> known) {
        if (node.isObject()) {
            JsonNode path = node.get("path");
            JsonNode phase = node.get("phase");
            if (path != null && path.has("environmentVariable") && phase != null && "RUN_TIME".equals(phase.asText())) {
                known.put(path.get("environmentVariable").asText(), path.get("property").asText());
            }
            node.forEach(child -> collect(child, known));
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, known));
        }
        // quarkus.profile is read before any mapping: the core model lists it with no phase
        if (node.isObject() && node.has("path") && "quarkus.profile".equals(node.get("path").path("property").asText())) {
            known.put("QUARKUS_PROFILE", "quarkus.profile");
        }
    }

    /**
     * The application's keys: those of application.properties outside quarkus.* (a quarkus.* key
     * fixed at build time would ignore an environment variable), and every @ConfigMapping under
     * target/classes.
     */
    private static void applicationKeys(Map<String, String> known) throws Exception {
        for (String k : applicationProperties().stringPropertyNames()) {
            String key = k.startsWith("%") ? k.substring(k.indexOf('.') + 1) : k;
            if (!key.startsWith("quarkus.")) { // Quarkus keys count only when the model says run time
                known.put(env(key), key);
            }
        }
        Path classes = Path.of("target", "classes");
        int mappings = 0;
        try (Stream<Path> s = Files.walk(classes)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (!name.startsWith("dev.exactly.") || name.contains("$$")) {
                    continue;
                }
                Class<?> c = Class.forName(name, false, TerraformConfigTest.class.getClassLoader());
                ConfigMapping m = c.getAnnotation(ConfigMapping.class);
                if (m != null) {
                    mappings++;
                    mappingKeys(c, m.prefix(), known);
                }
            }
        }
        assertTrue(mappings >= 2, "the app's @ConfigMapping interfaces must be found");
        assertTrue(known.containsKey("EXACTLY_AUTH_API_KEY_SHA256"), "the mapping walk works");
    }

    private static void mappingKeys(Class<?> type, String prefix, Map<String, String> known) {
        for (Method method : type.getMethods()) {
            if (method.getParameterCount() > 0 || Modifier.isStatic(method.getModifiers()) || method.isDefault()) {
                continue;
            }
            WithName w = method.getAnnotation(WithName.class);
            String key = prefix + "." + (w != null ? w.value() : kebab(method.getName()));
            Class<?> r = method.getReturnType();
            if (r.isInterface() && r.getName().startsWith("dev.exactly.")) {
                mappingKeys(r, key, known);
            } else {
                known.put(env(key), key);
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** The environment-variable form of a key (SmallRye Config): non-alphanumerics to '_', upper case. */
    private static String env(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    private static Properties applicationProperties() throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("src", "main", "resources", "application.properties"), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    private interface Visitor {
        void visit(String path, String key, Object value);
    }

    @SuppressWarnings("unchecked")
    private static void walk(String path, Object node, Visitor v) {
        if (node instanceof Map<?, ?> m) {
            ((Map<String, Object>) m).forEach((k, val) -> {
                v.visit(path + "." + k, k, val);
                walk(path + "." + k, val, v);
            });
        } else if (node instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                walk(path + "[" + i + "]", l.get(i), v);
            }
        }
    }
}
