package dev.exactly.db;

/**
 * The database is not ready for this release: its schema is missing or older than the code
 * (PostgreSQL answered 3F000 invalid_schema_name, or 42P01/42883 for an object of the exactly
 * schema), or, in the AWS deployment, the application role the migrate step makes does not
 * exist yet. The once-per-deploy step {@code POST /api/v1/admin/migrate} fixes it; until then
 * every request answers 503 problem+json naming that step. Nothing was written, so retrying the
 * same request after the migration is safe.
 */
public class NotMigratedException extends StoreUnavailableException {

    /** What a client or operator is told to do. */
    public static final String ADVICE = "The database has not been migrated for this release: run POST /api/v1/admin/migrate "
            + "with the API key (once per deploy). Nothing of this request was written; retrying it after the migration is safe.";

    /**
     * @param reason what showed it (e.g. the application role's secret has no value yet)
     * @param cause  the underlying failure, or null
     */
    public NotMigratedException(String reason, Throwable cause) {
        super("database not migrated: " + reason, cause);
    }

    /** @param cause the server's refusal (schema or object missing) */
    public NotMigratedException(Throwable cause) {
        this(cause.getMessage(), cause);
    }
}
