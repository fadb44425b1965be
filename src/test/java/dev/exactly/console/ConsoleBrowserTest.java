package dev.exactly.console;

import static dev.exactly.consume.ConsumeFixtures.deadLetterAll;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: headless Chromium driven by Selenium through the system's
 * chromedriver (never one Selenium would download), against the started service. Each page, the
 * key prompt, paging through queues, a redrive from the dead-letter view checked through the API,
 * the lookup of a key answered duplicate, and the webhook sources' figures with a signature failure. Screenshots go to target/console-screenshots;
 * axe-core (installed by .ci/run from npm into target/axe, not committed) checks each page for
 * serious or critical accessibility violations.
 *
 * <p>Without Chromium and chromedriver the tests are skipped, saying how to run them:
 * {@code apt-get install -y chromium chromium-driver} (Debian), or set
 * {@code -Dexactly.chromedriver=/path/to/chromedriver -Dexactly.chromium=/path/to/chromium}.
 */
@QuarkusTest
class ConsoleBrowserTest {

    static final Path CHROMEDRIVER = Path.of(System.getProperty("exactly.chromedriver", "/usr/bin/chromedriver"));
    static final Path CHROMIUM = Path.of(System.getProperty("exactly.chromium", "/usr/bin/chromium"));
    static final Path AXE = Path.of(System.getProperty("exactly.axe", "target/axe/node_modules/axe-core/axe.min.js"));
    static final Path SHOTS = Path.of("target", "console-screenshots");

    private static WebDriver driver;

    @BeforeAll
    static void browser() throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM),
                "no Chromium/chromedriver at " + CHROMIUM + " and " + CHROMEDRIVER + ": the console's browser tests are "
                        + "skipped. To run them: apt-get install -y chromium chromium-driver (as .ci/run does), or pass "
                        + "-Dexactly.chromium=<chromium> -Dexactly.chromedriver=<chromedriver>");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--disable-gpu", "--no-first-run", "--disable-extensions");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    static void quit() {
        if (driver != null) {
            driver.quit();
        }
    }

    static String base() {
        return "http://localhost:" + ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class) + "/console/";
    }

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static WebElement await(By by) {
        return new WebDriverWait(driver, Duration.ofSeconds(20)).until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    private static void awaitText(By by, String text) {
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(ExpectedConditions.textToBePresentInElementLocated(by, text));
    }

    /** Opens the console with the key entered (as an operator would, once per tab). */
    private static void openWithKey(String hash) {
        driver.get(base() + hash);
        Object stored = ((JavascriptExecutor) driver).executeScript("return sessionStorage.getItem('exactly.console.key')");
        if (stored == null) {
            await(By.id("key-input")).sendKeys(Api.TEST_API_KEY);
            driver.findElement(By.cssSelector("#key-form button")).click();
            new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> !d.findElement(By.id("key-prompt")).isDisplayed());
        }
    }

    private static void screenshot(String name) throws IOException {
        byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
        Files.write(SHOTS.resolve(name + ".png"), png);
    }

    /** axe-core's serious and critical violations on the page as it is now; skipped (said) without axe-core. */
    private static void accessible(String page) throws IOException {
        if (!Files.isRegularFile(AXE)) {
            System.out.println("ConsoleBrowserTest: no axe-core at " + AXE + ", accessibility of " + page + " not checked "
                    + "(npm install --no-save --prefix target/axe axe-core@4, as .ci/run does)");
            return;
        }
        JavascriptExecutor js = (JavascriptExecutor) driver;
        js.executeScript(Files.readString(AXE, StandardCharsets.UTF_8));
        String json = (String) js.executeAsyncScript("var done = arguments[arguments.length - 1];"
                + "axe.run(document, {resultTypes: ['violations']}).then(function (r) { done(JSON.stringify(r.violations)); },"
                + " function (e) { done(JSON.stringify([{id: 'axe-error', impact: 'critical', help: String(e)}])); });");
        List<String> bad = new ArrayList<>();
        for (JsonNode v : new ObjectMapper().readTree(json)) {
            String impact = v.path("impact").asText();
            if (impact.equals("serious") || impact.equals("critical")) {
                bad.add(impact + " " + v.path("id").asText() + ": " + v.path("help").asText() + " " + v.path("nodes"));
            }
        }
        assertEquals(List.of(), bad, "axe-core on the " + page + " page");
    }

    @Test
    void theKeyIsAskedForOnceAndKeptInTheTabOnly() throws IOException {
        driver.get(base());
        ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
        driver.get(base());
        WebElement input = await(By.id("key-input"));
        assertEquals("password", input.getAttribute("type"));
        screenshot("key-prompt");
        accessible("key prompt");

        input.sendKeys("not-the-key");
        driver.findElement(By.cssSelector("#key-form button")).click();
        awaitText(By.id("key-error"), "refused");

        await(By.id("key-input")).sendKeys(Api.TEST_API_KEY);
        driver.findElement(By.cssSelector("#key-form button")).click();
        await(By.id("queues"));
        JavascriptExecutor js = (JavascriptExecutor) driver;
        assertEquals(Api.TEST_API_KEY, js.executeScript("return sessionStorage.getItem('exactly.console.key')"));
        assertEquals(0L, js.executeScript("return localStorage.length"), "nothing kept beyond the tab");
        assertFalse(driver.getCurrentUrl().contains(Api.TEST_API_KEY), driver.getCurrentUrl());
        assertTrue(driver.manage().getCookies().isEmpty(), "no cookie");

        // the page at /console (no trailing slash) is the same console
        driver.get(base().substring(0, base().length() - 1));
        await(By.id("queues"));

        driver.findElement(By.id("forget-key")).click();
        await(By.id("key-input"));
        assertEquals(null, js.executeScript("return sessionStorage.getItem('exactly.console.key')"));
    }

    @Test
    void theOverviewPagesSortsAndFiltersQueues() throws IOException {
        String tag = fresh("cons");
        for (int i = 0; i < 12; i++) {
            pushMany(tag + "-" + String.format("%02d", i), "p", "m", i % 3 + 1);
        }
        openWithKey("#/");
        WebElement filter = await(By.id("filter"));
        filter.clear();
        filter.sendKeys(tag);
        new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("page-size"))).selectByValue("10");
        driver.findElement(By.cssSelector("form.toolbar button[type=submit]")).click();
        awaitText(By.cssSelector("#queues caption"), tag);
        List<String> first = rows();
        assertEquals(10, first.size(), first.toString());
        assertEquals(tag + "-00", first.get(0));
        screenshot("overview");
        accessible("overview");

        driver.findElement(By.id("next-page")).click();
        awaitText(By.cssSelector("#queues caption"), "Page 2");
        List<String> second = rows();
        assertEquals(List.of(tag + "-10", tag + "-11"), second);
        assertFalse(driver.findElement(By.id("next-page")).isEnabled(), "the last page");
        Set<String> all = new HashSet<>(first);
        all.addAll(second);
        assertEquals(12, all.size());

        driver.findElement(By.id("prev-page")).click();
        awaitText(By.cssSelector("#queues caption"), "Page 1");
        assertEquals(first, rows());

        // sorted by messages stored, most first (the page shown)
        driver.findElement(By.cssSelector("button[data-sort=messages]")).click();
        List<String> sorted = rows();
        // the table is drawn again: the focus stays on the button that sorted it
        assertEquals("messages", ((JavascriptExecutor) driver).executeScript(
                "return document.activeElement.getAttribute('data-sort')"));
        assertEquals(3, Integer.parseInt(driver.findElement(By.cssSelector("#queues tbody tr td")).getText()));
        assertEquals("descending", driver.findElement(By.xpath("//button[@data-sort='messages']/..")).getAttribute("aria-sort"));
        assertEquals(new HashSet<>(first), new HashSet<>(sorted));
    }

    @Test
    void aQueueNameOf255CharactersWrapsInsteadOfWideningThePage() throws IOException {
        String q = fresh("cons-long");
        q = q + "-" + "x".repeat(255 - q.length() - 1);
        assertEquals(255, q.length());
        push(q, "p", "k", "{}");
        openWithKey("#/");
        WebElement filter = await(By.id("filter"));
        filter.clear();
        filter.sendKeys(q);
        driver.findElement(By.cssSelector("form.toolbar button[type=submit]")).click();
        awaitText(By.cssSelector("#queues caption"), q);
        JavascriptExecutor js = (JavascriptExecutor) driver;
        long width = ((Number) js.executeScript("return document.documentElement.scrollWidth")).longValue();
        long window = ((Number) js.executeScript("return window.innerWidth")).longValue();
        assertTrue(width <= window, "the overview is " + width + " px wide in a window of " + window);

        driver.findElement(By.linkText(q)).click();
        await(By.id("figure-messages"));
        width = ((Number) js.executeScript("return document.documentElement.scrollWidth")).longValue();
        assertTrue(width <= window, "the queue page is " + width + " px wide in a window of " + window);
        screenshot("long-name");
    }

    private static List<String> rows() {
        return driver.findElements(By.cssSelector("#queues tbody tr")).stream().map(r -> r.getAttribute("data-queue")).toList();
    }

    @Test
    void aRedriveFromTheDeadLetterViewIsConfirmedAndShowsEachResult() throws IOException {
        String q = fresh("cons-dl");
        pushMany(q, "p", "m", 3);
        List<String> copies = deadLetterAll(q, "p", 3);
        push(q, "p", "dup-key", "{}");
        push(q, "p", "dup-key", "{}"); // a duplicate, for the chart once flushed

        openWithKey("#/queue/" + q);
        await(By.id("dead-letter-table"));
        await(By.cssSelector("#dup-chart"));
        assertEquals(3, driver.findElements(By.cssSelector("#dead-letter-table tbody tr")).size());
        assertTrue(driver.findElement(By.id("groups")).getText().contains("g"));
        assertTrue(driver.findElement(By.id("options")).getText().contains("dedupWindowSeconds"));
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> !d.findElements(By.cssSelector("#dup-chart .uplot")).isEmpty());
        // the chart's time axis is in UTC, as the tables are, and says so
        assertTrue(driver.findElement(By.cssSelector("#dup-chart .uplot")).getText().contains("UTC"),
                driver.findElement(By.cssSelector("#dup-chart .uplot")).getText());
        assertTrue(driver.findElement(By.id("dup-chart")).getAttribute("aria-label").contains("(UTC)"));
        screenshot("queue");
        accessible("queue");

        assertEquals("4", driver.findElement(By.cssSelector("#figure-messages .value")).getText());

        // cancelled: nothing is redriven
        check(copies.get(0));
        driver.findElement(By.id("redrive-selected")).click();
        await(By.id("confirm-cancel")).click();
        assertEquals(List.of(), redriven(q));

        // two selected, confirmed: each one's result is shown
        check(copies.get(0));
        check(copies.get(1));
        driver.findElement(By.id("redrive-selected")).click();
        assertTrue(await(By.id("confirm-text")).getText().contains("2 dead letters"));
        screenshot("redrive-confirm");
        driver.findElement(By.id("confirm-ok")).click();
        WebElement result = await(By.id("redrive-result-table"));
        assertEquals(2, result.findElements(By.cssSelector("tbody tr")).size());
        assertTrue(result.getText().contains(copies.get(0)) && result.getText().contains(copies.get(1)), result.getText());
        assertEquals(2, result.getText().split("redriven", -1).length - 1, result.getText());
        awaitText(By.id("redrive-results"), "1 dead letter remains");
        // the queue's figures follow the redrive without a reload: the two stored again are counted
        awaitText(By.cssSelector("#figure-messages .value"), "6");
        screenshot("redrive-result");

        // checked through the API: those two went back to the queue, the third did not
        assertEquals(Set.of(copies.get(0), copies.get(1)), new HashSet<>(redriven(q)));
        JsonPath page = api().get("/api/v1/queues/{q}/dead-letters", q).then().statusCode(200).extract().jsonPath();
        String storedId = page.getString("deadLetters.find { it.messageId == '" + copies.get(0) + "' }.redrivenTo");
        assertEquals(q, api().get("/api/v1/messages/{id}", storedId).then().statusCode(200).extract().jsonPath().getString("queue"));
        assertEquals("redrive:" + copies.get(0), api().get("/api/v1/messages/{id}", storedId).then().extract()
                .jsonPath().getString("transactionId"));

        // the last one, from its own row's button
        await(By.cssSelector("button[aria-label='Redrive " + copies.get(2) + "']")).click();
        await(By.id("confirm-ok")).click();
        awaitText(By.id("redrive-results"), "0 dead letters remain");
        assertEquals(Set.of(copies.get(0), copies.get(1), copies.get(2)), new HashSet<>(redriven(q)));
    }

    @Test
    void aQueuePageShowsItsDestinationsAndTheirState() throws IOException {
        String q = fresh("cons-dest");
        push(q, "p", "before", "{}");
        openWithKey("#/queue/" + q);
        awaitText(By.id("destinations"), "No destination receives");
        // an address nothing answers on (the tests' allowed range): its one attempt fails, and the
        // message is dead-lettered for the destination
        api().body("{\"url\":\"http://127.0.0.2:9/hook\",\"maxAttempts\":1,\"timeoutMs\":1000}")
                .put("/api/v1/queues/{q}/destinations/{d}", q, "d-" + q).then().statusCode(201);
        push(q, "p", "after", "{}");
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(d -> api().get("/api/v1/queues/{q}/destinations", q)
                .then().extract().jsonPath().getInt("destinations[0].state.deadLetters") == 1);
        driver.navigate().refresh();
        WebElement table = await(By.id("destinations-table"));
        String row = table.findElement(By.cssSelector("tbody tr")).getText();
        assertTrue(row.contains("d-" + q) && row.contains("http://127.0.0.2:9/hook") && row.contains("in order")
                && row.contains("delivering"), row);
        assertTrue(table.findElement(By.cssSelector("tbody tr td:last-child")).getText().length() > 1, row);
        assertTrue(driver.findElement(By.id("groups")).getText().contains("destination:d-" + q));
        screenshot("queue-destinations");
        accessible("queue-destinations");
        api().delete("/api/v1/queues/{q}/destinations/{d}", q, "d-" + q).then().statusCode(204);
    }

    @Test
    void aDotOrDotDotQueueLinkIsRefusedWithoutAFetch() throws IOException {
        openWithKey("#/");
        await(By.id("queues"));
        JavascriptExecutor js = (JavascriptExecutor) driver;
        // every URL the page fetches from now on (fetch starts synchronously with the route)
        js.executeScript("window.fetchedUrls = []; var f = window.fetch; window.fetch = function (u) {"
                + " window.fetchedUrls.push(String(u)); return f.apply(this, arguments); };");
        for (String dots : List.of("%2e%2e", "%2E", "..")) {
            js.executeScript("location.hash = arguments[0]", "#/queue/" + dots);
            WebElement refused = await(By.id("queue-refused"));
            assertTrue(refused.getText().contains("must not be '.' or '..'"), refused.getText());
            assertEquals("alert", refused.getAttribute("role"));
            // a route change puts the focus on the new page's heading
            assertEquals("Queue " + (dots.equals("%2E") ? "." : ".."), js.executeScript(
                    "return document.activeElement.tagName === 'H1' ? document.activeElement.textContent : null"));
            js.executeScript("location.hash = '#/'");
            await(By.id("queues"));
        }
        @SuppressWarnings("unchecked")
        List<String> fetched = (List<String>) js.executeScript("return window.fetchedUrls");
        assertFalse(fetched.stream().anyMatch(u -> u.contains("/api/v1/stats") || u.contains("/api/v1/queues/")),
                fetched.toString());
        assertTrue(fetched.stream().anyMatch(u -> u.contains("/api/v1/overview")), "the recorder works: " + fetched);
    }

    private static void check(String copy) {
        WebElement box = await(By.cssSelector("#dead-letter-table tr[data-id='" + copy + "'] input[type=checkbox]"));
        if (!box.isSelected()) {
            box.click();
        }
    }

    private static List<String> redriven(String q) {
        List<Map<String, Object>> listed = api().get("/api/v1/queues/{q}/dead-letters", q).then().statusCode(200)
                .extract().jsonPath().getList("deadLetters");
        return listed.stream().filter(d -> d.get("redrivenTo") != null).map(d -> (String) d.get("messageId")).toList();
    }

    @Test
    void aKeyAnsweredDuplicateLeadsToItsOriginal() throws IOException {
        String q = fresh("cons-lookup");
        Map<String, Object> original = push(q, "p", "evt_123", "{\"amount\":2000}");
        Map<String, Object> again = push(q, "p", "evt_123", "{\"amount\":2000}");
        assertEquals("duplicate", again.get("status"));

        openWithKey("#/lookup");
        await(By.id("lookup-queue")).sendKeys(q);
        driver.findElement(By.id("lookup-txn")).sendKeys("evt_123");
        driver.findElement(By.cssSelector("#lookup-by-key button")).click();
        WebElement section = await(By.cssSelector("#lookup-result section.message"));
        assertEquals(original.get("messageId"), section.getAttribute("data-message-id"));
        String why = section.findElement(By.id("why-duplicate")).getText();
        assertTrue(why.contains("is answered \"duplicate\" with messageId " + again.get("messageId")), why);
        assertTrue(why.contains("stored at"), why);
        assertTrue(section.findElement(By.cssSelector("pre.payload")).getText().contains("2000"));
        assertFalse(driver.getCurrentUrl().contains(Api.TEST_API_KEY));
        screenshot("lookup");
        accessible("lookup");

        // by messageId, the same original
        driver.get(base() + "#/lookup?messageId=" + again.get("messageId"));
        driver.navigate().refresh();
        WebElement byId = await(By.cssSelector("#lookup-result section.message"));
        assertEquals(original.get("messageId"), byId.getAttribute("data-message-id"));
    }

    @Test
    void theWebhookSourcesPageShowsEachSourcesFiguresAndASignatureFailure() throws IOException {
        // the source console-hooks (github preset): one delivery, its redelivery, one forgery
        // (other tests send forgeries to every source: the page is compared with the API's figures)
        Map<String, Object> before = consoleHooks();
        String delivery = UUID.randomUUID().toString();
        byte[] body = ("{\"zen\":\"" + delivery + "\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals(200, hook(body, delivery, "gh-test-secret").statusCode());
        assertEquals(200, hook(body, delivery, "gh-test-secret").statusCode());
        assertEquals(401, hook(body, UUID.randomUUID().toString(), "a-forged-secret").statusCode());

        Map<String, Object> after = consoleHooks();
        for (String outcome : List.of("accepted", "duplicates", "signatureFailures")) {
            assertEquals(1, count(after, outcome) - count(before, outcome), outcome);
        }

        openWithKey("#/webhooks");
        WebElement row = await(By.cssSelector("#webhook-sources tr[data-source='console-hooks']"));
        assertEquals(shown(after, "accepted"), row.findElement(By.cssSelector("td.accepted")).getText());
        assertEquals(shown(after, "duplicates"), row.findElement(By.cssSelector("td.duplicates")).getText());
        assertEquals(shown(after, "signatureFailures"), row.findElement(By.cssSelector("td.signature-failures")).getText());
        assertEquals(shown(after, "rejected"), row.findElement(By.cssSelector("td.rejected")).getText());
        String window = row.findElement(By.cssSelector("td.window")).getText();
        assertTrue(window.contains("the github preset"), window);
        assertTrue(row.getText().contains("webhooks.console-hooks"), row.getText());
        assertFalse(row.getText().contains("– –"), "both last times shown: " + row.getText());
        assertEquals("page", driver.findElement(By.id("nav-webhooks")).getAttribute("aria-current"));
        screenshot("webhook-sources");
        accessible("webhook sources");

        // a source's hours
        row.findElement(By.linkText("console-hooks")).click();
        WebElement hours = await(By.id("webhook-hours"));
        assertTrue(hours.getText().contains("Signature failures"), hours.getText());
        assertFalse(hours.findElements(By.cssSelector("tbody tr")).isEmpty());
        screenshot("webhook-source-hours");
        accessible("webhook source hours");
    }

    private static Map<String, Object> consoleHooks() {
        List<Map<String, Object>> all = api().get("/api/v1/webhooks/sources").then().statusCode(200).extract().jsonPath()
                .getList("sources");
        return all.stream().filter(s -> "console-hooks".equals(s.get("name"))).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static long count(Map<String, Object> source, String outcome) {
        return ((Number) ((Map<String, Object>) source.get("last24Hours")).get(outcome)).longValue();
    }

    /** The page's "last hour / last 24 hours" text of a count. */
    @SuppressWarnings("unchecked")
    private static String shown(Map<String, Object> source, String outcome) {
        long hour = ((Number) ((Map<String, Object>) source.get("lastHour")).get(outcome)).longValue();
        return String.format(java.util.Locale.ENGLISH, "%,d / %,d", hour, count(source, outcome));
    }

    private static java.net.http.HttpResponse<String> hook(byte[] body, String delivery, String secret) {
        return dev.exactly.webhook.WebhookClient.post("console-hooks", body, "Content-Type", "application/json",
                "X-GitHub-Event", "push", "X-GitHub-Delivery", delivery,
                "X-Hub-Signature-256", dev.exactly.webhook.Signing.github(secret, body));
    }
}
