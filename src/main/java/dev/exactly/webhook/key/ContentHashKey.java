package dev.exactly.webhook.key;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.Delivery;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * The key is a hash of the body's content, not of its bytes: {@code "sha256:" + hex(SHA-256(
 * RFC 8785 canonical form))}, so deliveries that differ only in key order, whitespace or number
 * spelling (1.0 / 1) collide. First the values at the exclude pointers are removed (volatile
 * fields: a send time, an attempt counter); then, when include pointers are given, only their
 * values are hashed, as the object {@code {"<pointer>": value, ...}} (absent pointers left out).
 * Numbers are compared as IEEE 754 doubles, as RFC 8785 section 3.2.2.3 prescribes.
 */
public final class ContentHashKey implements KeyExtractor {

    /** The key prefix naming the hash. */
    public static final String PREFIX = "sha256:";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<String> includeText;
    private final List<JsonPointer> include = new ArrayList<>();
    private final List<JsonPointer> exclude = new ArrayList<>();

    /**
     * @param include pointers whose values alone are hashed (empty: the whole body)
     * @param exclude pointers whose values are removed first; array elements are removed in the order given
     * @throws IllegalArgumentException when a pointer is not RFC 6901 or is the whole document
     */
    public ContentHashKey(List<String> include, List<String> exclude) {
        this.includeText = List.copyOf(include);
        for (String p : include) {
            this.include.add(PointerField.compile(p));
        }
        for (String p : exclude) {
            this.exclude.add(PointerField.compile(p));
        }
    }

    @Override
    public String key(Delivery delivery) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(canonicalForm(delivery));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return PREFIX + HexFormat.of().formatHex(digest);
    }

    /**
     * The bytes that are hashed: the selected content in RFC 8785 canonical form, UTF-8.
     *
     * @throws ApiProblem 400 when the body is not JSON, none of the include pointers is present,
     *                    or the content cannot be canonicalised (e.g. a number out of double range)
     */
    public byte[] canonicalForm(Delivery delivery) {
        JsonNode root = delivery.json("the content hash").deepCopy();
        for (JsonPointer p : exclude) {
            root = remove(root, p);
        }
        JsonNode selected = root;
        if (!include.isEmpty()) {
            ObjectNode picked = MAPPER.createObjectNode();
            for (int i = 0; i < include.size(); i++) {
                JsonNode v = root.at(include.get(i));
                if (!v.isMissingNode()) {
                    picked.set(includeText.get(i), v);
                }
            }
            if (picked.isEmpty()) {
                throw ApiProblem.invalid(null, "body", "carries none of the content-hash include pointers "
                        + includeText + ": this source's deduplication key");
            }
            selected = picked;
        }
        try {
            return new JsonCanonicalizer(MAPPER.writeValueAsString(selected)).getEncodedUTF8();
        } catch (IOException | RuntimeException e) {
            throw ApiProblem.invalid(null, "body", "cannot be put in RFC 8785 canonical form: " + e.getMessage());
        }
    }

    /** Removes the value at {@code p}; the whole document cannot be removed. */
    private static JsonNode remove(JsonNode root, JsonPointer p) {
        JsonNode parent = root.at(p.head());
        String last = p.last().getMatchingProperty();
        if (parent instanceof ObjectNode o) {
            o.remove(last);
        } else if (parent instanceof ArrayNode a) {
            int index = p.last().getMatchingIndex();
            if (index >= 0 && index < a.size()) {
                a.remove(index);
            }
        }
        return root;
    }

    @Override
    public String describe() {
        return "content-hash";
    }
}
