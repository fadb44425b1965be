package dev.exactly.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The local default's API key: generated on first start (32 random bytes, base64url, no padding,
 * RFC 4648 section 5) into a file readable only by its owner, and read back on later starts, so a
 * newcomer can copy it ({@code KEY=$(cat .exactly/api-key)}). Used only when no key is configured.
 */
final class LocalApiKey {

    private LocalApiKey() {
    }

    /**
     * @param file where the key lives, e.g. .exactly/api-key
     * @return the key, created on first use
     * @throws IOException when the file cannot be read or written
     */
    static String loadOrCreate(Path file) throws IOException {
        if (Files.exists(file)) {
            String key = Files.readString(file, StandardCharsets.UTF_8).trim();
            if (!key.isEmpty()) {
                return key;
            }
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String key = "ex_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "api-key", ".tmp");
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the directory's permissions apply
        }
        Files.writeString(tmp, key + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return key;
    }

    /** @return the lowercase hex SHA-256 of the key's UTF-8 bytes (the form exactly.auth.api-key-sha256 takes) */
    static String sha256Hex(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
