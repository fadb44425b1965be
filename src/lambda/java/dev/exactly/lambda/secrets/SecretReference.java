package dev.exactly.lambda.secrets;

/**
 * Where one configuration value lives in AWS Secrets Manager: a secret (name or ARN) and,
 * for a secret whose string is a JSON object, the member holding the value.
 *
 * @param secretId the secret's name or ARN, as GetSecretValue takes it
 * @param field    the JSON member of the secret string, or null for the whole string
 */
public record SecretReference(String secretId, String field) {

    /**
     * Parses {@code <secret-id>} or {@code <secret-id>#<json-member>}. Secret names never
     * contain '#' (Secrets Manager allows letters, digits and {@code /_+=.@-}), so the last '#'
     * separates the member.
     *
     * @param text the reference
     * @return the parsed reference
     * @throws IllegalArgumentException when the secret id or the member is empty
     */
    public static SecretReference parse(String text) {
        String t = text == null ? "" : text.trim();
        int hash = t.lastIndexOf('#');
        String id = hash < 0 ? t : t.substring(0, hash);
        String field = hash < 0 ? null : t.substring(hash + 1);
        if (id.isEmpty() || (field != null && field.isEmpty())) {
            throw new IllegalArgumentException("'" + text + "' is not <secret name or ARN>[#<json member>]");
        }
        return new SecretReference(id, field);
    }
}
