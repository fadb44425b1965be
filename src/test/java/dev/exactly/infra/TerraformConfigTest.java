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
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks of infra/terraform against the build and the application, without Terraform: every .tf
 * file is parsed with an HCL parser (hcl4j). References come back from the parser as text
 * ("var.name", "aws_lambda_alias.live.invoke_arn"); function calls come back as null. Terraform
 * itself (init, validate, plan, and the refusals of infra/terraform/tests) runs in .ci/run where a
 * terraform binary and a provider mirror exist.
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

    /** docs/deploy-aws.md, the deploy guide, has a row for every variable, with its default. */
    @Test
    void theGuideDescribesEveryVariable() throws IOException {
        String guide = Files.readString(Path.of("docs", "deploy-aws.md"));
        List<String> missing = new ArrayList<>();
        blocks("variable").forEach((name, body) -> {
            Matcher row = Pattern.compile("(?m)^\\| `" + name + "` \\| ([^|]+) \\|").matcher(guide);
            if (!row.find()) {
                missing.add(name + " (no row)");
                return;
            }
            Object def = map(body).get("default");
            String shown = row.group(1).trim();
            boolean required = !map(body).containsKey("default");
            if (required ? !shown.equals("(required)") : !shown.equals("`" + hclLiteral(def) + "`")) {
                missing.add(name + " (default shown " + shown + ", is " + (required ? "required" : hclLiteral(def)) + ")");
            }
        });
        assertEquals(List.of(), missing, "variables the guide does not describe as they are");
    }

    private static String hclLiteral(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof List<?> l && l.isEmpty()) {
            return "[]";
        }
        if (value instanceof Map<?, ?> m && m.isEmpty()) {
            return "{}";
        }
        if (value instanceof String text && text.isEmpty()) {
            return "\"\"";
        }
        if (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return String.valueOf(n.longValue());
        }
        return String.valueOf(value);
    }

    /** The AWS provider only (the plan runs offline against a mirror that has nothing else), pinned, and Terraform 1.11 for write-only arguments. */
    @Test
    void onlyTheAwsProviderPinned() {
        Map<String, Object> terraform = map(FILES.get("versions.tf").get("terraform"));
        assertTrue(String.valueOf(terraform.get("required_version")).startsWith(">= 1.11"),
                "write-only arguments (secret_string_wo) need Terraform 1.11: " + terraform.get("required_version"));
        Map<String, Object> providers = map(terraform.get("required_providers"));
        assertEquals(Set.of("aws"), providers.keySet(), "the module needs only the AWS provider");
        Map<String, Object> aws = map(providers.get("aws"));
        assertEquals("hashicorp/aws", aws.get("source"));
        assertTrue(String.valueOf(aws.get("version")).matches("~> 5\\.\\d+"), "aws provider pinned to 5.x: " + aws.get("version"));
        String all = String.join("\n", TEXT.values().stream().map(TerraformConfigTest::stripComments).toList());
        assertFalse(all.contains("random_") || all.contains("ephemeral \""), "no random provider, no ephemeral resource (opened at plan)");
        assertEquals(Set.of("aws_iam_policy_document"), blocks("data").keySet(),
                "no data source that calls AWS at plan (aws_iam_policy_document is computed locally)");
    }

    @Test
    void bothFunctionsMatchTheBuild() {
        Path zip = DIR.resolve(String.valueOf(variableDefault("function_zip"))).normalize();
        assertEquals(Path.of("target", "function.zip"), zip, "the zip the lambda Maven profile builds");
        assertEquals(HANDLER, map(FILES.get("function.tf").get("locals")).get("handler"));
        assertEquals(Set.of("this", "maintenance"), map(blocks("resource").get("aws_lambda_function")).keySet());
        assertEquals(2, Pattern.compile("variables = local\\.environment\\b").matcher(TEXT.get("function.tf") + TEXT.get("maintenance.tf"))
                .results().count(), "both functions get the same environment");
        for (String name : List.of("this", "maintenance")) {
            Map<String, Object> fn = resource("aws_lambda_function", name);
            // hcl4j resolves a local defined in the same file
            assertTrue(List.of(HANDLER, "local.handler").contains(String.valueOf(fn.get("handler"))), name + ": " + fn.get("handler"));
            assertEquals("var.function_zip", String.valueOf(fn.get("filename")), name);
            assertEquals("var.lambda_runtime", String.valueOf(fn.get("runtime")), name);
            Object variables = map(fn.get("environment")).get("variables");
            assertTrue(map(variables).containsKey("EXACTLY_SECRETS_DOCUMENT") || "local.environment".equals(String.valueOf(variables)),
                    name + ": the settings");
            assertNotNull(map(fn.get("vpc_config")).get("subnet_ids"), name + " runs in the VPC");
            assertEquals("JSON", map(fn.get("logging_config")).get("log_format"), name);
        }
        assertTrue(List.of("java17", "java21").contains(String.valueOf(variableDefault("lambda_runtime"))));
        assertFalse(TEXT.get("variables.tf").contains("java25"), "the pinned provider (5.x) knows no java25: not offered");
        assertTrue(((Number) variableDefault("lambda_memory_mb")).intValue() >= 512);
    }

    @Test
    void theFunctionsLogFormatIsJsonAsTheLambdaShapeWritesIt() throws IOException {
        assertEquals("aws_cloudwatch_log_group.function.name",
                String.valueOf(map(resource("aws_lambda_function", "this").get("logging_config")).get("log_group")));
        assertEquals("aws_cloudwatch_log_group.maintenance.name",
                String.valueOf(map(resource("aws_lambda_function", "maintenance").get("logging_config")).get("log_group")));
        Properties app = applicationProperties();
        assertEquals("true", app.getProperty("%lambda.quarkus.log.console.json.enabled"),
                "QUARKUS_PROFILE=lambda turns on Quarkus' JSON console format");
        assertEquals("lambda", environment().get("QUARKUS_PROFILE").replace("\"", ""), "the functions run the lambda profile");
    }

    @Test
    void snapStartOnPublishedVersionsBehindAnAlias() {
        Map<String, Object> fn = resource("aws_lambda_function", "this");
        assertEquals("PublishedVersions", map(fn.get("snap_start")).get("apply_on"));
        assertEquals(Boolean.TRUE, fn.get("publish"), "SnapStart applies only to published versions");
        Map<String, Object> alias = onlyResource("aws_lambda_alias");
        assertEquals("aws_lambda_function.this.version", String.valueOf(alias.get("function_version")));
        assertEquals("aws_lambda_alias.live.function_version", String.valueOf(map(blocks("output").get("function_version")).get("value")),
                "the version to wait for (aws lambda wait published-version-active) is an output");
    }

    @Test
    void httpApiUsesPayloadFormat2ToTheAlias() {
        assertEquals("HTTP", onlyResource("aws_apigatewayv2_api").get("protocol_type"));
        Map<String, Object> integration = onlyResource("aws_apigatewayv2_integration");
        assertEquals("2.0", integration.get("payload_format_version"));
        assertEquals("AWS_PROXY", integration.get("integration_type"));
        assertEquals("aws_lambda_alias.live.invoke_arn", String.valueOf(integration.get("integration_uri")));
        assertEquals("var.api_integration_timeout_ms", String.valueOf(integration.get("timeout_milliseconds")));
        assertEquals("$default", onlyResource("aws_apigatewayv2_route").get("route_key"));
        Map<String, Object> permission = resource("aws_lambda_permission", "api");
        assertEquals("apigateway.amazonaws.com", permission.get("principal"));
        assertEquals("aws_lambda_alias.live.name", String.valueOf(permission.get("qualifier")));
        Map<String, Object> stage = onlyResource("aws_apigatewayv2_stage");
        assertEquals("var.api_throttling_rate_limit", String.valueOf(map(stage.get("default_route_settings")).get("throttling_rate_limit")));
        assertEquals("aws_cloudwatch_log_group.api.arn", String.valueOf(map(stage.get("access_log_settings")).get("destination_arn")));
    }

    /**
     * The timeouts nest, by default and as plan enforces them: the request deadline (the
     * application answers 503 problem+json by then) + 2 s <= the HTTP function's timeout <= the
     * HTTP API's integration timeout <= 30 s; the deadline reaches the application as its config key.
     */
    @Test
    void timeoutsNestFromTheDeadlineOut() {
        long deadline = ((Number) variableDefault("request_deadline_ms")).longValue();
        long function = ((Number) variableDefault("lambda_timeout_seconds")).longValue() * 1000;
        long api = ((Number) variableDefault("api_integration_timeout_ms")).longValue();
        assertEquals(25_000, deadline);
        assertEquals(28_000, function);
        assertEquals(30_000, api);
        assertTrue(deadline + 2000 <= function && function <= api && api <= 30_000);
        assertEquals("var.lambda_timeout_seconds", String.valueOf(resource("aws_lambda_function", "this").get("timeout")));
        assertEquals("var.maintenance_timeout_seconds", String.valueOf(resource("aws_lambda_function", "maintenance").get("timeout")));
        String vars = stripComments(TEXT.get("variables.tf"));
        assertTrue(vars.contains("condition     = var.request_deadline_ms + 2000 <= var.lambda_timeout_seconds * 1000"), "plan refuses a deadline too close");
        assertTrue(vars.contains("condition     = var.lambda_timeout_seconds * 1000 <= var.api_integration_timeout_ms"), "plan refuses a function outliving the API");
        assertTrue(vars.contains("var.api_integration_timeout_ms >= 50 && var.api_integration_timeout_ms <= 30000"));
        assertTrue(stripComments(TEXT.get("secrets.tf")).contains("\"exactly.request.deadline-ms\"        = tostring(var.request_deadline_ms)"),
                "the deadline reaches the application");
    }

    /**
     * Names: every name derived from var.name fits the limit of the resource it names, at the
     * longest name variables.tf accepts (31). The limits: IAM role name_prefix 38 (IAM's 64 less
     * the 26 characters the provider appends; the provider refuses 39 at plan), RDS DB instance
     * and proxy identifiers 63, Lambda function and EventBridge rule names 64, SQS queue names 80.
     */
    @Test
    void everyNameFitsItsResourceAtTheLongestAllowedName() {
        String vars = stripComments(TEXT.get("variables.tf"));
        assertTrue(vars.contains("condition     = length(var.name) >= 2 && length(var.name) <= 31"), "name: at most 31");
        assertTrue(vars.contains("!strcontains(var.name, \"--\")"), "no doubled hyphen (RDS identifiers refuse it)");
        String longest = "n".repeat(31);
        Map<String, Integer> limits = Map.of(
                "aws_iam_role.name_prefix", 38,
                "aws_db_instance.identifier", 63,
                "aws_db_proxy.name", 63,
                "aws_lambda_function.function_name", 64,
                "aws_cloudwatch_event_rule.name", 64,
                "aws_sqs_queue.name", 80);
        Map<String, Object> locals = new HashMap<>();
        FILES.values().forEach(f -> locals.putAll(map(f.get("locals"))));
        List<String> checked = new ArrayList<>();
        limits.forEach((typeAndAttribute, limit) -> {
            String type = typeAndAttribute.substring(0, typeAndAttribute.indexOf('.'));
            String attribute = typeAndAttribute.substring(type.length() + 1);
            map(blocks("resource").get(type)).forEach((name, body) -> {
                Object value = map(body).get(attribute);
                String text = String.valueOf(value);
                if (text.startsWith("local.")) {
                    text = String.valueOf(locals.get(text.substring("local.".length())));
                }
                String expanded = text.replace("${var.name}", longest).replace("var.name", longest);
                assertFalse(expanded.contains("${"), type + "." + name + "." + attribute + " = " + text);
                assertTrue(expanded.length() <= limit, type + "." + name + "." + attribute + " = " + expanded + " (" + expanded.length()
                        + " characters, limit " + limit + ")");
                checked.add(type + "." + name);
            });
        });
        assertTrue(checked.containsAll(List.of("aws_iam_role.proxy", "aws_iam_role.function", "aws_db_instance.this",
                "aws_db_proxy.this", "aws_lambda_function.this", "aws_lambda_function.maintenance")), checked.toString());
    }

    @Test
    void databaseProxyLogsAndSchedule() {
        Map<String, Object> db = onlyResource("aws_db_instance");
        assertEquals("postgres", db.get("engine"));
        assertTrue(Set.of("16", "17").contains(String.valueOf(variableDefault("postgres_version")).split("\\.")[0]));
        assertEquals(Boolean.FALSE, db.get("publicly_accessible"));
        assertEquals(Boolean.TRUE, db.get("manage_master_user_password"), "RDS keeps and rotates the master password");
        assertFalse(db.containsKey("password") || db.containsKey("password_wo"), "the module passes no password");
        assertEquals("var.db_multi_az", String.valueOf(db.get("multi_az")));
        assertTrue(String.valueOf(db.get("final_snapshot_identifier")).contains("timestamp()") || TEXT.get("database.tf")
                .contains("final_snapshot_identifier = \"${var.name}-db-final-${formatdate(\"YYYYMMDDhhmmss\", timestamp())}\""),
                "the final snapshot is named by the instance's creation time");
        assertTrue(TEXT.get("database.tf").contains("ignore_changes = [final_snapshot_identifier]"), "and the name is kept");
        Map<String, Object> proxy = onlyResource("aws_db_proxy");
        assertEquals(Boolean.TRUE, proxy.get("require_tls"));
        assertEquals("aws_secretsmanager_secret.app.arn", String.valueOf(map(proxy.get("auth")).get("secret_arn")),
                "clients log in as the application role");
        assertFalse(map(blocks("resource").get("aws_secretsmanager_secret_version")).containsKey("app"),
                "the module writes no value into the application role's secret (the migrate step does)");
        assertEquals(Set.of("maintenance", "delivery"), map(blocks("resource").get("aws_cloudwatch_event_rule")).keySet());
        assertEquals("var.maintenance_schedule", String.valueOf(resource("aws_cloudwatch_event_rule", "maintenance").get("schedule_expression")));
        assertEquals("aws_lambda_function.maintenance.arn", String.valueOf(resource("aws_cloudwatch_event_target", "maintenance").get("arn")));
        assertEquals("events.amazonaws.com", resource("aws_lambda_permission", "maintenance").get("principal"));
        Map<String, Object> invoke = resource("aws_lambda_function_event_invoke_config", "maintenance");
        assertNotNull(map(map(invoke.get("destination_config")).get("on_failure")).get("destination"), "an on-failure destination");
        assertTrue(stripComments(TEXT.get("maintenance.tf")).contains("destination = local.maintenance_failure_destination")
                        && TEXT.get("maintenance.tf").contains("maintenance_failure_destination = local.create_maintenance_failed_queue ? aws_sqs_queue.maintenance_failed[0].arn : var.maintenance_failure_destination_arn"),
                "a failed maintenance run goes to a destination (EventBridge's FailedInvocations does not count it)");
        assertTrue(stripComments(TEXT.get("maintenance.tf")).contains("reserved_concurrent_executions = var.lambda_reserved_concurrency == -1 ? -1 : 1"),
                "one maintenance run at a time, unless the account reserves nothing (-1): then neither function reserves");
    }

    /**
     * The schedule's target stores nothing secret (events:ListTargetsByRule shows a target's
     * input): it sets no input at all, so EventBridge sends its own scheduled event, which the
     * function's handler runs maintenance for without an API key; and no maintenance key exists.
     */
    @Test
    void theScheduleSendsEventBridgesOwnEventWithNoKey() {
        Map<String, Object> target = resource("aws_cloudwatch_event_target", "maintenance");
        for (String input : List.of("input", "input_path", "input_transformer")) {
            assertFalse(target.containsKey(input), "the maintenance target sets no " + input + ": " + target);
        }
        String all = String.join("\n", TEXT.values().stream().map(TerraformConfigTest::stripComments).toList());
        assertFalse(all.contains("maintenance_key"), "no maintenance key is generated or sent");
        assertFalse(stripComments(TEXT.get("maintenance.tf")).contains("authorization"), "no credential in maintenance.tf");
    }

    @Test
    void theDatabaseUrlRequiresTls() {
        String url = environment().get("QUARKUS_DATASOURCE_REACTIVE_URL");
        assertTrue(url.startsWith("\"postgresql://${aws_db_proxy.this.endpoint}:5432/"), url);
        assertTrue(url.endsWith("?sslmode=require\""), url);
        assertTrue(stripComments(TEXT.get("secrets.tf")).contains(
                "\"exactly.secrets.database-admin-url\" = \"postgresql://${aws_db_instance.this.address}:${aws_db_instance.this.port}/${var.db_name}?sslmode=require\""),
                "the migrate step's direct connection too");
    }

    /**
     * The alarms AWS users expect, each notifying alarm_topic_arns: function errors and throttles,
     * API 5xx, maintenance failures, database CPU, storage and connections, proxy pinning.
     */
    @Test
    void alarms() {
        Map<String, Object> alarms = map(blocks("resource").get("aws_cloudwatch_metric_alarm"));
        Map<String, String> metrics = new TreeMap<>();
        alarms.forEach((name, body) -> {
            metrics.put(String.valueOf(map(body).get("metric_name")), name);
            // hcl4j resolves the local: local.alarm_actions = var.alarm_topic_arns
            assertTrue(List.of("local.alarm_actions", "var.alarm_topic_arns").contains(String.valueOf(map(body).get("alarm_actions"))), name);
        });
        assertTrue(metrics.keySet().containsAll(List.of("Errors", "Throttles", "5xx", "CPUUtilization", "FreeStorageSpace",
                "DatabaseConnections", "DatabaseConnectionsCurrentlySessionPinned", "ApproximateNumberOfMessagesVisible")), metrics.toString());
        assertEquals("var.alarm_topic_arns", String.valueOf(map(FILES.get("alarms.tf").get("locals")).get("alarm_actions")));
    }

    // --- the function's environment and its settings document --------------------------------

    /**
     * The function's environment as written in function.tf: the literal variables of
     * local.environment (name -> expression text).
     */
    private static Map<String, String> environment() {
        String fn = stripComments(TEXT.get("function.tf"));
        int start = fn.indexOf("  environment = {");
        assertTrue(start >= 0, "function.tf has local.environment");
        String block = fn.substring(start, fn.indexOf("\n  }\n", start));
        Map<String, String> vars = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^\\s*([A-Z][A-Z0-9_]*)\\s*=\\s*(.+)$").matcher(block);
        while (m.find()) {
            vars.put(m.group(1), m.group(2).trim());
        }
        assertTrue(vars.containsKey("QUARKUS_PROFILE"), block);
        return vars;
    }

    /** The options secrets.tf writes per webhook source, as exactly.webhooks.sources.<name>.<option>. */
    private static Map<String, String> webhookOptions() {
        String tf = stripComments(TEXT.get("secrets.tf"));
        int start = tf.indexOf("for option, value in {");
        int end = tf.indexOf("} : format(\"exactly.webhooks.sources.%s.%s\", name, option) => value if value != null", start);
        assertTrue(start >= 0 && end > start, "secrets.tf maps each source option to exactly.webhooks.sources.<name>.<option>");
        Matcher m = Pattern.compile("(?m)^\\s*\"([a-z.-]+)\"\\s*=\\s*(.+)$").matcher(tf.substring(start, end));
        Map<String, String> out = new LinkedHashMap<>();
        while (m.find()) {
            out.put(m.group(1), m.group(2).trim());
        }
        assertTrue(out.containsKey("preset"), "secrets.tf writes each source's preset: " + out);
        return out;
    }

    /** The literal config keys of local.settings_properties (secrets.tf). */
    private static Set<String> settingsKeys() {
        String tf = stripComments(TEXT.get("secrets.tf"));
        int start = tf.indexOf("settings_properties = merge(");
        String block = tf.substring(start, tf.indexOf("\n  )\n", start));
        Matcher m = Pattern.compile("(?m)^\\s*\"([a-z.-]+)\"\\s*=").matcher(block);
        Set<String> out = new TreeSet<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        assertTrue(block.contains("var.app_settings") && block.contains("local.webhook_properties"), block);
        return out;
    }

    /**
     * The environment is a fixed handful of variables (far below Lambda's 4 KB for all of them, a
     * precondition checks the total), and none carries a secret: API keys only as digests given by
     * the user, every other secret named by ARN in the settings document.
     */
    /**
     * Delivery in the Lambda shape: the schedule invokes the HTTP function's live alias with the
     * drain event (nothing secret in the target's input), Lambda does not retry a drain, and the
     * role's delivery grants name their resources (no wildcard).
     */
    @Test
    void theDeliveryScheduleSendsTheDrainEventAndTheGrantsNameTheirArns() {
        Map<String, Object> target = resource("aws_cloudwatch_event_target", "delivery");
        assertEquals("aws_lambda_alias.live.arn", String.valueOf(target.get("arn")));
        String delivery = stripComments(TEXT.get("delivery.tf"));
        assertTrue(delivery.contains("input = jsonencode({ exactly = \"deliver\" })"), "the drain event: " + target);
        assertEquals("var.delivery_schedule", String.valueOf(resource("aws_cloudwatch_event_rule", "delivery").get("schedule_expression")));
        Map<String, Object> permission = resource("aws_lambda_permission", "delivery");
        assertEquals("events.amazonaws.com", permission.get("principal"));
        assertEquals("aws_cloudwatch_event_rule.delivery.arn", String.valueOf(permission.get("source_arn")));
        assertEquals(0, ((Number) resource("aws_lambda_function_event_invoke_config", "delivery").get("maximum_retry_attempts")).intValue());
        assertFalse(delivery.contains("\"*\""), "no wildcard resource in the delivery grants");
        assertTrue(delivery.contains("resources = [aws_lambda_alias.live.arn]"), "the function may invoke only its own alias");
    }

    @Test
    void theEnvironmentIsSmallAndCarriesNoSecret() {
        Map<String, String> env = environment();
        assertEquals(Set.of("JAVA_TOOL_OPTIONS", "QUARKUS_PROFILE", "QUARKUS_DATASOURCE_REACTIVE_URL", "EXACTLY_AUTH_API_KEY_SHA256",
                        "EXACTLY_SECRETS_DOCUMENT", "EXACTLY_SECRETS_VERSION"), env.keySet(), "the function's environment");
        assertEquals("join(\",\", var.api_key_sha256)", env.get("EXACTLY_AUTH_API_KEY_SHA256"), "API keys only as digests");
        assertEquals("aws_secretsmanager_secret.settings.arn", env.get("EXACTLY_SECRETS_DOCUMENT"));
        List<String> found = new ArrayList<>();
        Pattern secretValue = Pattern.compile("secret_string|var\\.webhook_secrets|jsondecode|password");
        env.forEach((k, v) -> {
            if (secretValue.matcher(v).find()) {
                found.add(k + " = " + v);
            }
        });
        assertEquals(List.of(), found, "environment variables reading a secret's value");
        assertTrue(TEXT.get("function.tf").contains("condition     = local.environment_bytes <= 4096"), "plan/apply checks Lambda's 4 KB");
        assertTrue(stripComments(TEXT.get("variables.tf")).contains("length(var.api_key_sha256) >= 1 && length(var.api_key_sha256) <= 10"),
                "a bounded number of digests");
        // the settings document: settings and ARNs, no secret value
        String secrets = stripComments(TEXT.get("secrets.tf"));
        String webhookProps = secrets.substring(secrets.indexOf("webhook_properties = merge(["), secrets.indexOf("]...)"));
        assertFalse(webhookProps.contains("secret"), "a source's settings carry no secret: " + webhookProps);
        assertTrue(secrets.contains("{ for name, arn in local.webhook_secret_arns : format(\"exactly.webhooks.sources.%s.secret\", name) => arn },"),
                "each webhook secret by reference");
        String delivery = stripComments(TEXT.get("delivery.tf"));
        String destinationProps = delivery.substring(delivery.indexOf("destination_properties = merge(["), delivery.indexOf("]...)"));
        assertFalse(destinationProps.contains("secret"), "a destination's settings carry no secret: " + destinationProps);
        assertTrue(delivery.contains("format(\"exactly.destinations.%s.signing-secret\", name) => d.signing_secret_arn")
                && secrets.contains("local.destination_secrets"), "each destination's signing secret by reference");
        // webhook_secrets reach Secrets Manager only, write-only
        String all = String.join("\n", TEXT.entrySet().stream().filter(e -> !e.getKey().equals("variables.tf"))
                .map(e -> stripComments(e.getValue())).toList());
        Matcher uses = Pattern.compile("(?m)^.*var\\.webhook_secrets\\b.*$").matcher(all);
        List<String> lines = new ArrayList<>();
        while (uses.find()) {
            lines.add(uses.group().trim());
        }
        assertEquals(List.of("secret_string_wo         = var.webhook_secrets[each.key]"), lines, "webhook_secrets only as a write-only argument");
        Map<String, Object> webhookSecrets = map(blocks("variable").get("webhook_secrets"));
        assertEquals(Boolean.TRUE, webhookSecrets.get("sensitive"));
        assertEquals(Boolean.TRUE, webhookSecrets.get("ephemeral"), "kept out of plan files");
    }

    /**
     * A secret changed through Terraform reaches the function: it reads secrets only when a
     * version starts, so the version ids of the secrets the module writes and var.secrets_revision
     * are in the settings document, whose own version id is in the function's environment: a new
     * secret version changes the function's configuration, which publishes a new version that the
     * alias follows.
     */
    @Test
    void aChangedSecretPublishesANewVersion() {
        assertEquals("aws_secretsmanager_secret_version.settings.version_id", environment().get("EXACTLY_SECRETS_VERSION"));
        String secrets = stripComments(TEXT.get("secrets.tf"));
        int start = secrets.indexOf("secret_version_ids = concat(");
        assertTrue(start >= 0, "secrets.tf defines secret_version_ids");
        String ids = secrets.substring(start, secrets.indexOf("\n  )\n", start));
        assertTrue(ids.contains("[for name in sort(keys(local.created_webhook_secrets)) : aws_secretsmanager_secret_version.webhook[name].version_id]"), ids);
        assertTrue(ids.contains("var.secrets_revision"), ids);
        assertFalse(ids.contains("secret_string") || ids.contains("var.webhook_secrets"), "version ids, never values: " + ids);
        assertTrue(secrets.contains("revision   = local.secret_version_ids"), "the ids are part of the settings document");
        assertEquals("", variableDefault("secrets_revision"));
        assertEquals(Boolean.TRUE, resource("aws_lambda_function", "this").get("publish"), "a configuration change publishes a version");
        String all = String.join("\n", TEXT.values());
        assertFalse(all.contains("-replace=aws_lambda_function"), "no advice to replace the function (it drops the alias and permissions)");
    }

    /**
     * The functions may read exactly their secrets (the settings document, the application
     * role's and the master user's credentials, the webhook secrets), write only the application
     * role's (the migrate step), by full ARN; the proxy reads only the application role's.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theFunctionReadsExactlyItsSecrets() {
        Map<String, Object> policy = map(map(blocks("data").get("aws_iam_policy_document")).get("function"));
        Object statements = policy.get("statement");
        List<Map<String, Object>> list = statements instanceof List<?> l ? (List<Map<String, Object>>) l : List.of(map(statements));
        List<Map<String, Object>> secretStatements = list.stream()
                .filter(st -> String.valueOf(st.get("actions")).contains("secretsmanager")).toList();
        assertEquals(2, secretStatements.size(), "one statement reads, one writes: " + list);
        Map<String, Object> read = secretStatements.get(0);
        assertEquals(List.of("secretsmanager:GetSecretValue"), read.get("actions"));
        assertEquals("local.function_secret_arns", String.valueOf(read.get("resources")), "exactly the function's secrets");
        Map<String, Object> write = secretStatements.get(1);
        assertEquals(List.of("secretsmanager:PutSecretValue"), write.get("actions"));
        assertEquals("[aws_secretsmanager_secret.app.arn]", String.valueOf(write.get("resources")));
        String secrets = stripComments(TEXT.get("secrets.tf"));
        assertTrue(secrets.contains("[aws_secretsmanager_secret.settings.arn, aws_secretsmanager_secret.app.arn, local.master_secret_arn],")
                && secrets.contains("values(local.webhook_secret_arns),"), "the policy's secrets");
        assertTrue(TEXT.get("database.tf").contains("master_secret_arn = aws_db_instance.this.master_user_secret[0].secret_arn"));
        Map<String, Object> proxy = map(map(map(blocks("data").get("aws_iam_policy_document")).get("proxy")).get("statement"));
        assertEquals("[aws_secretsmanager_secret.app.arn]", String.valueOf(proxy.get("resources")));
    }

    @Test
    void poolConnectionsAreProxyFriendlyAndBoundedByTheDatabase() throws IOException {
        Properties app = applicationProperties();
        Duration maxLifetime = Duration.parse(app.getProperty("%lambda.quarkus.datasource.reactive.max-lifetime"));
        Duration idle = Duration.parse(app.getProperty("%lambda.quarkus.datasource.reactive.idle-timeout"));
        long proxyIdle = ((Number) variableDefault("proxy_idle_client_timeout_seconds")).longValue();
        assertEquals("var.proxy_idle_client_timeout_seconds", String.valueOf(onlyResource("aws_db_proxy").get("idle_client_timeout")));
        assertTrue(maxLifetime.toSeconds() < proxyIdle, "max-lifetime " + maxLifetime + " vs proxy " + proxyIdle + " s");
        assertTrue(idle.toSeconds() < proxyIdle, "idle-timeout " + idle + " vs proxy " + proxyIdle + " s");
        assertEquals("false", app.getProperty("%lambda.quarkus.datasource.reactive.cache-prepared-statements"),
                "no named prepared statements behind the proxy");
        // each instance holds at most max-size connections: the bound plan enforces counts 2
        int perInstance = Integer.parseInt(app.getProperty("%lambda.quarkus.datasource.reactive.max-size"));
        assertEquals(2, perInstance);
        assertTrue(stripComments(TEXT.get("variables.tf")).contains(
                "2 * var.lambda_reserved_concurrency + 2 <= floor(var.db_max_connections * var.proxy_max_connections_percent / 100)"));
        long concurrency = ((Number) variableDefault("lambda_reserved_concurrency")).longValue();
        long maxConnections = ((Number) variableDefault("db_max_connections")).longValue();
        long percent = ((Number) variableDefault("proxy_max_connections_percent")).longValue();
        assertTrue(concurrency >= 1 && perInstance * concurrency + perInstance <= maxConnections * percent / 100,
                "the default concurrency fits the default database");
        assertTrue(TEXT.get("database.tf").contains("value        = tostring(var.db_max_connections)"), "max_connections is set, so known at plan");
    }

    @Test
    void everySettingIsARealConfigKey() throws Exception {
        Map<String, String> known = new HashMap<>(); // environment form -> where it comes from
        quarkusRuntimeKeys(known);
        applicationKeys(known);
        Map<String, String> lambdaKeys = lambdaShapeKeys();
        lambdaKeys.forEach((k, where) -> known.put(env(k), where));
        // read by nothing: its change (a new settings document) makes apply publish a new version
        known.put("EXACTLY_SECRETS_VERSION", "secrets.tf, the settings document's version id");
        // read by the JVM itself (LambdaRuntimeIT starts the function with the same value)
        known.put("JAVA_TOOL_OPTIONS", "the JVM");
        List<String> unknown = new ArrayList<>();
        for (String env : environment().keySet()) {
            if (!known.containsKey(env)) {
                unknown.add(env);
            }
        }
        for (String key : settingsKeys()) {
            if (!known.containsKey(env(key))) {
                unknown.add(key);
            }
        }
        Map<String, String> sourceKeys = new HashMap<>();
        mappingKeys(dev.exactly.webhook.WebhooksConfig.Source.class, "exactly.webhooks.sources.x", sourceKeys);
        for (String option : webhookOptions().keySet()) {
            if (!sourceKeys.containsKey(env("exactly.webhooks.sources.x." + option))) {
                unknown.add("exactly.webhooks.sources.<name>." + option);
            }
        }
        assertEquals(List.of(), unknown, "settings that no config key of the app reads");
        assertTrue(applicationProperties().stringPropertyNames().stream()
                        .anyMatch(k -> k.startsWith("%" + environment().get("QUARKUS_PROFILE").replace("\"", "") + ".")),
                "QUARKUS_PROFILE names a profile application.properties configures");
    }


    /** Config keys the Lambda shape's own code reads (src/lambda, not compiled in this build): its exactly.* constants. */
    private static Map<String, String> lambdaShapeKeys() throws IOException {
        Map<String, String> out = new TreeMap<>();
        Pattern constant = Pattern.compile("public static final String [A-Z_]+ = \"(exactly\\.[a-z0-9.-]+)\";");
        try (Stream<Path> s = Files.walk(Path.of("src", "lambda", "java"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = constant.matcher(Files.readString(p));
                while (m.find()) {
                    out.put(m.group(1), p.getFileName().toString());
                }
            }
        }
        assertTrue(out.keySet().containsAll(List.of("exactly.secrets.document", "exactly.secrets.database",
                "exactly.secrets.database-admin", "exactly.secrets.database-admin-url", "exactly.secrets.database-app-user")), out.toString());
        return out;
    }

    @Test
    void noLiteralSecrets() {
        Pattern sensitive = Pattern.compile("(?i).*(password|secret|token|api_?key|private_?key|access_?key|authorization).*");
        Pattern reference = Pattern.compile(".*\\b(var|local|data|aws_[a-z0-9_]+)\\.[A-Za-z0-9_]+.*", Pattern.DOTALL);
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
     * webhook_sources that secrets.tf writes as that setting.
     */
    @Test
    void everySourceSettingCanBeSetFromTerraform() {
        Map<String, String> sourceKeys = new HashMap<>();
        mappingKeys(dev.exactly.webhook.WebhooksConfig.Source.class, "exactly.webhooks.sources.x", sourceKeys);
        Set<String> settings = new TreeSet<>();
        sourceKeys.values().forEach(k -> settings.add(k.substring("exactly.webhooks.sources.x.".length())));
        settings.remove("secret");
        Map<String, String> options = webhookOptions();
        Set<String> missing = new TreeSet<>(settings);
        missing.removeAll(options.keySet());
        assertEquals(Set.of(), missing, "source settings Terraform cannot set");
        Set<String> fromFields = new TreeSet<>();
        options.values().forEach(v -> {
            Matcher f = Pattern.compile("\\bs\\.([a-z_]+)").matcher(v);
            while (f.find()) {
                fromFields.add(f.group(1));
            }
        });
        Set<String> fields = new TreeSet<>(webhookSourceFields());
        fields.remove("secret_arn");
        assertEquals(fields, fromFields, "each field of webhook_sources is written as a setting");
        assertTrue(TEXT.get("secrets.tf").contains("\"notification-url\"   = s.notification_url != null ? s.notification_url : "
                + "(coalesce(s.signature, s.preset) == \"square\" ? local.webhook_urls[name] : null)"),
                "a square source's notification URL defaults to its own webhook URL");
    }

    /**
     * A source that checks a signature and has neither secret_arn nor an entry in webhook_secrets
     * is refused by a validation of webhook_secrets that names the sources needing one
     * (cross-variable validation: Terraform 1.9); the same rule decides which sources get a
     * secret in secrets.tf.
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
        assertNotNull(condition, "a validation reads var.webhook_secrets' names");
        assertTrue(condition.contains(rule) && condition.contains("s.secret_arn == null")
                && condition.contains("contains(keys(var.webhook_secrets), name)"), condition);
        assertTrue(message.contains("[for name, s in var.webhook_sources : name if " + rule + " && s.secret_arn == null]"),
                "the message names the sources that need a secret (not the ephemeral entries): " + message);
        String secrets = stripComments(TEXT.get("secrets.tf"));
        assertTrue(secrets.contains("if " + rule), "secrets.tf: the signed sources by the same rule");
        assertTrue(secrets.contains("created_webhook_secrets = { for name, s in local.signed_webhook_sources : name => s if s.secret_arn == null }"));
        assertTrue(secrets.contains("for name, s in local.signed_webhook_sources :"), "only signed sources have a secret ARN");
    }

    /**
     * terraform.tfvars.example plans as the guide's first apply runs it: every active signed
     * source (every preset; generic unless signature = "none") has secret_arn, or its name in the
     * TF_VAR_webhook_secrets that the example tells to export for the first apply (Stripe's
     * secret exists only once its endpoint does, so the stripe entry stays commented out).
     * .ci/run plans it with that export.
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
        for (String required : List.of("region", "subnet_ids", "api_key_sha256", "vpc_id")) {
            assertTrue(vars.containsKey(required), "the example sets " + required);
        }
        String runner = Files.readString(Path.of(".ci", "run"));
        assertTrue(runner.contains("-var-file=terraform.tfvars.example") && runner.contains("terraform test"),
                ".ci/run plans the example and runs the module's tests");
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
        Pattern setting = Pattern.compile("^# ([a-z0-9_]+)\\s*=\\s*(\"[^\"]*\"|\\[\\]|[^\\s#]+)\\s*(#.*)?$");
        Map<String, Object> shown = new LinkedHashMap<>();
        for (int i = from + 1; i < lines.size() && !lines.get(i).isBlank(); i++) {
            Matcher m = setting.matcher(lines.get(i));
            assertTrue(m.matches(), "not a commented setting: " + lines.get(i));
            shown.putAll(new HCLParser().parse(m.group(1) + " = " + m.group(2) + "\n"));
        }
        assertTrue(shown.containsKey("lambda_runtime"), "the example shows lambda_runtime: " + shown.keySet());
        shown.forEach((name, value) -> assertEquals(String.valueOf(variableDefault(name)), String.valueOf(value), name));
    }

    /**
     * Values the function would refuse or leave disabled at start-up are refused by plan: queue
     * and partition names by the application's own name rule (dev.exactly.naming.Names), JSON
     * Pointers that do not start with '/', a secret_arn that is not a secret's full ARN (the role
     * is granted ARNs, and IAM matches only the full one), an empty webhook secret; and kms keys
     * get kms:Decrypt through Secrets Manager only.
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
        Pattern secretArn = Pattern.compile(arn.group(1).replace("\\\\", "\\"));
        assertTrue(secretArn.matcher("arn:aws:secretsmanager:eu-west-1:123456789012:secret:exactly-webhook-github-AbCdEf").matches());
        assertTrue(secretArn.matcher("arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:team/x-AbCdEf").matches());
        assertFalse(secretArn.matcher("arn:aws:secretsmanager:eu-west-1:123456789012:secret:stripe-webhook").matches(),
                "a partial ARN (no 6-character suffix) is refused");
        assertFalse(secretArn.matcher("exactly-webhook-github").matches());
        assertFalse(secretArn.matcher("arn:aws:kms:eu-west-1:123456789012:key/abc").matches());
        assertTrue(vars.contains("condition     = alltrue([for v in values(var.webhook_secrets) : trimspace(v) != \"\"])"),
                "an empty webhook secret is refused");
        assertEquals(null, variableDefault("kms_key_arn"));
        String iam = stripComments(TEXT.get("iam.tf"));
        assertTrue(iam.contains("secret_kms_keys = compact([var.kms_key_arn, var.db_kms_key_arn])"), iam);
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
