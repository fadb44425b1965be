package dev.exactly.testing;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/**
 * The way tests call the HTTP API: JSON, with the test profile's API key
 * ({@link #TEST_API_KEY}, whose SHA-256 the %test profile configures).
 */
public final class Api {

    /** The API key every test request carries. */
    public static final String TEST_API_KEY = "exactly-test-key";

    private Api() {
    }

    /** A request with the test API key and a JSON content type. */
    public static RequestSpecification api() {
        return given().header("Authorization", "Bearer " + TEST_API_KEY).contentType(ContentType.JSON);
    }

    /** A request with no API key at all. */
    public static RequestSpecification anonymous() {
        return given().contentType(ContentType.JSON);
    }
}
