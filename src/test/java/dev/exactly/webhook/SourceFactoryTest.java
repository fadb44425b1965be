package dev.exactly.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.validator.BeanValidationConfigValidatorImpl;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Configuration to sources, through SmallRye Config's real mapping of {@link WebhooksConfig}. */
class SourceFactoryTest {

    private static WebhooksConfig config(Map<String, String> props) {
        SmallRyeConfig c = new SmallRyeConfigBuilder().withMapping(WebhooksConfig.class)
                .withValidator(new BeanValidationConfigValidatorImpl())
                .withSources(new PropertiesConfigSource(props, "test", 100)).build();
        return c.getConfigMapping(WebhooksConfig.class);
    }

    private static SourceFactory.Problems problems;

    private static WebhookSource build(String name, Map<String, String> props) {
        problems = new SourceFactory.Problems();
        return new SourceFactory(6 * 1024 * 1024, Clock.systemUTC()).build(name, config(props).sources().get(name), problems);
    }

    @Test
    void githubPresetDefaults() {
        WebhookSource s = build("github", Map.of("exactly.webhooks.sources.github.preset", "github",
                "exactly.webhooks.sources.github.secret", "s"));
        assertNotNull(s, problems.errors().toString());
        assertEquals("webhooks.github", s.queue());
        assertEquals("X-GitHub-Delivery", s.key().describe());
        assertEquals("github", s.signature().scheme());
        assertEquals("Default", s.partition().describe());
        assertTrue(s.keptHeaders().containsAll(List.of("x-github-event", "x-github-delivery", "x-hub-signature-256")));
        assertEquals(6 * 1024 * 1024, s.maxBodyBytes());
    }

    @Test
    void stripeAndStandardWebhooksPresets() {
        WebhookSource stripe = build("pay", Map.of("exactly.webhooks.sources.pay.preset", "stripe",
                "exactly.webhooks.sources.pay.secret", "whsec_x", "exactly.webhooks.sources.pay.queue", "payments"));
        assertEquals("/id", stripe.key().describe());
        assertEquals("stripe", stripe.signature().scheme());
        assertEquals("payments", stripe.queue());
        WebhookSource std = build("svix", Map.of("exactly.webhooks.sources.svix.preset", "standard-webhooks",
                "exactly.webhooks.sources.svix.secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
        assertEquals("webhook-id", std.key().describe());
        assertEquals("standard-webhooks", std.signature().scheme());
    }

    @Test
    void overridesReplaceThePresetKey() {
        WebhookSource s = build("shop", Map.of("exactly.webhooks.sources.shop.preset", "generic",
                "exactly.webhooks.sources.shop.signature", "hmac-sha256",
                "exactly.webhooks.sources.shop.signature-header", "X-Shopify-Hmac-Sha256",
                "exactly.webhooks.sources.shop.signature-encoding", "base64",
                "exactly.webhooks.sources.shop.secret", "x",
                "exactly.webhooks.sources.shop.key.header", "X-Shopify-Webhook-Id",
                "exactly.webhooks.sources.shop.partition.header", "X-Shopify-Shop-Domain"));
        assertNotNull(s, problems.errors().toString());
        assertEquals("X-Shopify-Webhook-Id", s.key().describe());
        assertEquals("X-Shopify-Shop-Domain", s.partition().describe());
        WebhookSource hashed = build("gh", Map.of("exactly.webhooks.sources.gh.preset", "github",
                "exactly.webhooks.sources.gh.secret", "x", "exactly.webhooks.sources.gh.key.content-hash", "true",
                "exactly.webhooks.sources.gh.key.exclude", "/sent_at"));
        assertEquals("content-hash", hashed.key().describe());
    }

    @Test
    void aSourceWithoutSecretIsDisabledNotBroken() {
        assertNull(build("github", Map.of("exactly.webhooks.sources.github.preset", "github")));
        assertTrue(problems.disabled());
        assertEquals(List.of(), problems.errors());
        assertNotNull(build("open", Map.of("exactly.webhooks.sources.open.signature", "none",
                "exactly.webhooks.sources.open.key.pointer", "/id")));
    }

    @Test
    void everyErrorNamesItsKey() {
        assertNull(build("x", Map.of("exactly.webhooks.sources.x.preset", "bitbucket")));
        assertTrue(problems.errors().get(0).startsWith("exactly.webhooks.sources.x.preset"), problems.errors().toString());

        assertNull(build("y", Map.of("exactly.webhooks.sources.y.secret", "s",
                "exactly.webhooks.sources.y.key.header", "A", "exactly.webhooks.sources.y.key.pointer", "/b",
                "exactly.webhooks.sources.y.queue", "bad queue", "exactly.webhooks.sources.y.key.exclude", "nope")));
        String all = String.join("\n", problems.errors());
        assertTrue(all.contains("exactly.webhooks.sources.y.signature"), all);
        assertTrue(all.contains("exactly.webhooks.sources.y.key: set exactly one"), all);
        assertTrue(all.contains("exactly.webhooks.sources.y.queue"), all);
        assertTrue(all.contains("exactly.webhooks.sources.y.key.include / key.exclude"), all);

        assertNull(build("z", Map.of("exactly.webhooks.sources.z.preset", "generic", "exactly.webhooks.sources.z.secret", "s",
                "exactly.webhooks.sources.z.signature", "hmac-sha256")));
        all = String.join("\n", problems.errors());
        assertTrue(all.contains("exactly.webhooks.sources.z.signature-header"), all);
        assertTrue(all.contains("exactly.webhooks.sources.z.key: the generic preset has no key"), all);

        assertNull(build("big", Map.of("exactly.webhooks.sources.big.preset", "github", "exactly.webhooks.sources.big.secret", "s",
                "exactly.webhooks.sources.big.max-body-bytes", Long.toString(6 * 1024 * 1024 + 1))));
        assertTrue(problems.errors().get(0).startsWith("exactly.webhooks.sources.big.max-body-bytes"), problems.errors().toString());

        assertNull(build("w", Map.of("exactly.webhooks.sources.w.preset", "github", "exactly.webhooks.sources.w.secret", "s",
                "exactly.webhooks.sources.w.key.pointer", "id")));
        assertTrue(problems.errors().get(0).startsWith("exactly.webhooks.sources.w.key.pointer"), problems.errors().toString());
    }

    @Test
    void aBadKeyPointerIsReportedOnceAndNotAsAMissingPresetKey() {
        // the source has a key, a bad one: "the github preset has no key" would be false and send its
        // author looking in the wrong place
        assertNull(build("w", Map.of("exactly.webhooks.sources.w.preset", "github", "exactly.webhooks.sources.w.secret", "s",
                "exactly.webhooks.sources.w.key.pointer", "id")));
        assertEquals(1, problems.errors().size(), problems.errors().toString());
        assertTrue(problems.errors().stream().noneMatch(e -> e.contains("has no key")), problems.errors().toString());
        // the generic preset with no key at all still says so
        assertNull(build("g", Map.of("exactly.webhooks.sources.g.signature", "none")));
        assertEquals(List.of("exactly.webhooks.sources.g.key: the generic preset has no key; set key.header, key.pointer "
                + "or key.content-hash"), problems.errors());
    }

    @Test
    void everyProviderPresetHasAKeyAWindowAndKeptHeaders() {
        Map<String, String> keys = Map.of("shopify", "X-Shopify-Webhook-Id", "slack", "/event_id", "gitlab",
                "Idempotency-Key", "twitch", "Twitch-Eventsub-Message-Id", "square", "/event_id", "linear",
                "Linear-Delivery", "paddle", "/event_id");
        keys.forEach((preset, key) -> {
            String at = "exactly.webhooks.sources." + preset + ".";
            WebhookSource s = build(preset, Map.of(at + "preset", preset, at + "secret", "s",
                    at + "notification-url", "https://hooks.example.com/webhooks/square"));
            assertNotNull(s, preset + ": " + problems.errors());
            assertEquals(key, s.key().describe(), preset);
            assertEquals(preset, s.signature().scheme(), preset);
            assertEquals(Preset.byId(preset).windowSeconds(), s.window().seconds(), preset);
            assertTrue(s.window().seconds() >= 3600, preset);
            assertTrue(!s.keptHeaders().isEmpty(), preset);
        });
        // GitLab's token is the secret itself: never kept
        assertTrue(build("gitlab", Map.of("exactly.webhooks.sources.gitlab.preset", "gitlab",
                "exactly.webhooks.sources.gitlab.secret", "s")).keptHeaders().stream().noneMatch(h -> h.contains("token")));
    }

    @Test
    void windowsCoverTheProvidersDocumentedHorizons() {
        assertEquals(8 * 86_400, Preset.GITHUB.windowSeconds());       // redeliveries: 3 days (GHES 7)
        assertEquals(4 * 86_400, Preset.STRIPE.windowSeconds());       // live retries: up to 3 days
        assertEquals(2 * 86_400, Preset.STANDARD_WEBHOOKS.windowSeconds()); // Svix schedule: ~27.6 h
        assertEquals(4 * 86_400, Preset.PADDLE.windowSeconds());       // live retries: 3 days
        assertEquals(4 * 86_400, Preset.SQUARE.windowSeconds());       // retries: up to 72 h
        assertNull(Preset.GENERIC.windowSeconds());
        WebhookSource own = build("x", Map.of("exactly.webhooks.sources.x.preset", "stripe",
                "exactly.webhooks.sources.x.secret", "s", "exactly.webhooks.sources.x.window-seconds", "120"));
        assertEquals(120, own.window().seconds());
        assertTrue(own.window().explicit());
        // a value out of its range stops the start, naming the key (the mapping's constraints)
        ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> build("y",
                Map.of("exactly.webhooks.sources.y.preset", "stripe", "exactly.webhooks.sources.y.secret", "s",
                        "exactly.webhooks.sources.y.window-seconds", "-1")));
        assertTrue(e.getMessage().contains("exactly.webhooks.sources.y.window-seconds"), e.getMessage());
    }

    @Test
    void theWindowRuleReplacesOnlyWindowsExactlyChose() {
        DedupWindow preset = DedupWindow.preset(345_600);
        assertTrue(preset.replaces(3600));          // the queue default: a queue created by a plain push
        assertTrue(!preset.replaces(345_600));      // already there
        assertTrue(!preset.replaces(900));          // an operator's choice
        assertTrue(!preset.replaces(0));            // an operator turned the probe off
        DedupWindow own = DedupWindow.explicit(120, 345_600);
        assertTrue(own.replaces(345_600));          // the preset's window, applied earlier by Exactly
        assertTrue(own.replaces(3600));
        assertTrue(!own.replaces(900));
    }

    @Test
    void schemeSettingsAreChecked() {
        assertNull(build("sq", Map.of("exactly.webhooks.sources.sq.preset", "square", "exactly.webhooks.sources.sq.secret", "k")));
        assertTrue(problems.errors().get(0).startsWith("exactly.webhooks.sources.sq.notification-url"), problems.errors().toString());
        // no secret: disabled, the URL is not required yet
        assertNull(build("sq", Map.of("exactly.webhooks.sources.sq.preset", "square")));
        assertTrue(problems.disabled());
        assertEquals(List.of(), problems.errors());
        assertNull(build("gh", Map.of("exactly.webhooks.sources.gh.preset", "github", "exactly.webhooks.sources.gh.secret", "s",
                "exactly.webhooks.sources.gh.tolerance-seconds", "60")));
        assertTrue(problems.errors().get(0).startsWith("exactly.webhooks.sources.gh.tolerance-seconds"), problems.errors().toString());
        assertNull(build("sw", Map.of("exactly.webhooks.sources.sw.preset", "standard-webhooks",
                "exactly.webhooks.sources.sw.secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "exactly.webhooks.sources.sw.tolerance-seconds", "600")));
        assertTrue(problems.errors().get(0).contains("fixes 300"), problems.errors().toString());
        assertNotNull(build("sl", Map.of("exactly.webhooks.sources.sl.preset", "slack", "exactly.webhooks.sources.sl.secret", "s",
                "exactly.webhooks.sources.sl.tolerance-seconds", "60")), String.valueOf(problems.errors()));
    }
}
