package dev.exactly.lambda.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * target/function.zip run as AWS runs it: unzipped into a task directory, loaded by the AWS Lambda
 * Java runtime interface client (target/lambda-ric, copied there by the lambda Maven profile) in
 * a JVM of its own, with the handler infra/terraform names and the task directory as working
 * directory, talking to a {@link RuntimeApiServer} through AWS_LAMBDA_RUNTIME_API. The process'
 * output goes to target/lambda-ric-&lt;name&gt;.log.
 */
public final class FunctionProcess implements AutoCloseable {

    private static final Path ZIP = Path.of("target", "function.zip");
    private static final Path TASK = Path.of("target", "lambda-task");
    private static final Path RIC = Path.of("target", "lambda-ric");
    private static final String MAIN = "com.amazonaws.services.lambda.runtime.api.client.AWSLambda";

    private final Process process;
    private final Path log;
    private final long startNanos;

    private FunctionProcess(Process process, Path log, long startNanos) {
        this.process = process;
        this.log = log;
        this.startNanos = startNanos;
    }

    /**
     * Starts the function.
     *
     * @param name        names the log file
     * @param runtimeApi  the Runtime API it polls
     * @param environment the function's environment (as Terraform sets it), besides the variables
     *                    the Lambda service itself sets
     */
    public static FunctionProcess start(String name, RuntimeApiServer runtimeApi, Map<String, String> environment) throws IOException {
        return start(name, runtimeApi, environment, unzipped(ZIP, TASK), null);
    }

    /**
     * Starts a function from an unzipped package.
     *
     * @param name             names the log file
     * @param runtimeApi       the Runtime API it polls
     * @param environment      the function's environment, besides the variables the Lambda service sets
     * @param task             the unzipped package (see {@link #unzipped(Path, Path)})
     * @param javaToolOptions  JAVA_TOOL_OPTIONS, or null for the value infra/terraform/function.tf sets
     */
    public static FunctionProcess start(String name, RuntimeApiServer runtimeApi, Map<String, String> environment, Path task,
                                        String javaToolOptions) throws IOException {
        return start(name, runtimeApi, environment, task, javaToolOptions, null);
    }

    /**
     * Starts a function from an unzipped package on a given JDK.
     *
     * @param name             names the log file
     * @param runtimeApi       the Runtime API it polls
     * @param environment      the function's environment, besides the variables the Lambda service sets
     * @param task             the unzipped package (see {@link #unzipped(Path, Path)})
     * @param javaToolOptions  JAVA_TOOL_OPTIONS, or null for the value infra/terraform/function.tf sets
     * @param javaHome         the JDK to run it on, or null for {@link #defaultJavaHome()}
     */
    public static FunctionProcess start(String name, RuntimeApiServer runtimeApi, Map<String, String> environment, Path task,
                                        String javaToolOptions, Path javaHome) throws IOException {
        List<String> command = new ArrayList<>();
        Path home = javaHome != null ? javaHome : defaultJavaHome();
        command.add(home.resolve("bin").resolve("java").toString());
        // what the managed Java runtime passes itself (serial GC, a heap bound by the function's
        // memory); the function's own JVM options come in JAVA_TOOL_OPTIONS, as on AWS
        command.addAll(List.of("-XX:+UseSerialGC", "-Xmx512m"));
        command.add("-cp");
        command.add(runtimeClasspath());
        command.add(MAIN);
        command.add(handler());
        ProcessBuilder pb = new ProcessBuilder(command).directory(task.toFile()).redirectErrorStream(true);
        Path log = Path.of("target", "lambda-ric-" + name + ".log").toAbsolutePath();
        pb.redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("QUARKUS_") || k.startsWith("EXACTLY_") || k.startsWith("AWS_"));
        // what the Lambda service sets for every function
        env.put("AWS_LAMBDA_RUNTIME_API", runtimeApi.address());
        env.put("AWS_LAMBDA_FUNCTION_NAME", "exactly");
        env.put("AWS_LAMBDA_FUNCTION_VERSION", "1");
        env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024");
        env.put("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/exactly");
        env.put("AWS_LAMBDA_LOG_STREAM_NAME", "2026/01/01/[1]0123456789abcdef");
        env.put("AWS_REGION", "eu-west-1");
        env.put("AWS_DEFAULT_REGION", "eu-west-1");
        env.put("AWS_ACCESS_KEY_ID", "AKIDEXAMPLETESTONLY1");
        env.put("AWS_SECRET_ACCESS_KEY", "test-only-secret-access-key");
        env.put("AWS_SESSION_TOKEN", "test-only-session-token");
        env.put("LAMBDA_TASK_ROOT", task.toAbsolutePath().toString());
        env.put("_HANDLER", handler());
        env.put("TZ", ":UTC");
        env.put("JAVA_TOOL_OPTIONS", javaToolOptions != null ? javaToolOptions : javaToolOptions());
        // what Lambda sets from the function's logging_config (infra/terraform/function.tf)
        env.put("AWS_LAMBDA_LOG_FORMAT", logFormat());
        env.putAll(environment);
        long start = System.nanoTime();
        return new FunctionProcess(pb.start(), log, start);
    }

    /** The environment variable that names another JDK for the functions the tests start. */
    public static final String JAVA_HOME_VARIABLE = "EXACTLY_LAMBDA_JAVA_HOME";

    /**
     * The JDK a function runs on unless told otherwise: {@value #JAVA_HOME_VARIABLE} when set (to
     * run the Lambda tests' functions on the Java version of the managed runtime, e.g. java25,
     * while the build stays on Java 17), else the one running this JVM.
     */
    public static Path defaultJavaHome() {
        String other = System.getenv(JAVA_HOME_VARIABLE);
        return other != null && !other.isBlank() ? Path.of(other) : Path.of(System.getProperty("java.home"));
    }

    /** The handler of infra/terraform/function.tf (local.handler). */
    public static String handler() throws IOException {
        Matcher m = Pattern.compile("(?m)^\\s*handler\\s*=\\s*\"([^\"]+)\"").matcher(Files.readString(Path.of("infra", "terraform", "function.tf")));
        if (!m.find()) {
            throw new IllegalStateException("infra/terraform/function.tf names no handler");
        }
        return m.group(1);
    }

    /** The JAVA_TOOL_OPTIONS infra/terraform/function.tf gives the function. */
    public static String javaToolOptions() throws IOException {
        Matcher m = Pattern.compile("(?m)^\\s*JAVA_TOOL_OPTIONS\\s*=\\s*\"([^\"]+)\"").matcher(Files.readString(Path.of("infra", "terraform", "function.tf")));
        if (!m.find()) {
            throw new IllegalStateException("infra/terraform/function.tf sets no JAVA_TOOL_OPTIONS");
        }
        return m.group(1);
    }

    /** The log format of infra/terraform/function.tf (logging_config.log_format): JSON or Text. */
    public static String logFormat() throws IOException {
        Matcher m = Pattern.compile("(?m)^\\s*log_format\\s*=\\s*\"([^\"]+)\"").matcher(Files.readString(Path.of("infra", "terraform", "function.tf")));
        if (!m.find()) {
            throw new IllegalStateException("infra/terraform/function.tf sets no log_format");
        }
        return m.group(1);
    }

    /** System.nanoTime() when the process was started. */
    public long startNanos() {
        return startNanos;
    }

    /** The operating-system process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether it is still running. */
    public boolean alive() {
        return process.isAlive();
    }

    /** Waits for it to end; returns its exit code, or -1 if it still runs. */
    public int waitFor(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    /** Its output so far. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String runtimeClasspath() throws IOException {
        if (!Files.isDirectory(RIC)) {
            throw new IllegalStateException(RIC + " is missing: the lambda Maven profile copies the runtime client there (mvn -Plambda verify)");
        }
        try (Stream<Path> s = Files.list(RIC)) {
            List<String> jars = s.filter(p -> p.toString().endsWith(".jar")).map(p -> p.toAbsolutePath().toString()).sorted().toList();
            if (jars.stream().noneMatch(j -> j.contains("aws-lambda-java-runtime-interface-client"))) {
                throw new IllegalStateException("no runtime interface client in " + RIC);
            }
            return String.join(java.io.File.pathSeparator, jars);
        }
    }

    /**
     * A package unzipped into a task directory, once per zip (again when the zip is newer).
     *
     * @param zipFile the package, e.g. target/function.zip
     * @param task    the directory (emptied first)
     * @return the task directory
     */
    public static synchronized Path unzipped(Path zipFile, Path task) throws IOException {
        if (!Files.isRegularFile(zipFile)) {
            throw new IllegalStateException(zipFile + " is missing: mvn -Plambda package builds it");
        }
        Path stamp = task.resolve(".unzipped");
        if (Files.isRegularFile(stamp) && Files.getLastModifiedTime(stamp).compareTo(Files.getLastModifiedTime(zipFile)) >= 0) {
            return task;
        }
        if (Files.exists(task)) {
            try (Stream<Path> s = Files.walk(task)) {
                List<Path> all = new ArrayList<>(s.toList());
                Collections.reverse(all);
                for (Path p : all) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(task);
        try (ZipFile zip = new ZipFile(zipFile.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                Path target = task.resolve(e.getName()).normalize();
                if (!target.startsWith(task)) {
                    throw new IOException("zip entry outside the task root: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        Files.writeString(stamp, "");
        return task;
    }

    /** TCP connections of a process by remote port (from /proc: its socket inodes in net/tcp and tcp6). */
    public static Map<Integer, Integer> establishedByRemotePort(long pid) {
        try {
            java.util.Set<String> inodes = new java.util.HashSet<>();
            try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        String link = Files.readSymbolicLink(fd).toString();
                        if (link.startsWith("socket:[")) {
                            inodes.add(link.substring(8, link.length() - 1));
                        }
                    } catch (IOException gone) {
                        // closed meanwhile
                    }
                }
            }
            Map<Integer, Integer> byPort = new TreeMap<>();
            for (String table : List.of("tcp", "tcp6")) {
                Path p = Path.of("/proc", Long.toString(pid), "net", table);
                if (!Files.exists(p)) {
                    continue;
                }
                // read once: the table lists every socket of the network namespace, so it changes
                // between two reads whenever anything on the machine connects or closes
                List<String> lines = Files.readAllLines(p);
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
                    if (f.length > 9 && "01".equals(f[3]) && inodes.contains(f[9])) {
                        int port = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
                        byPort.merge(port, 1, Integer::sum);
                    }
                }
            }
            return byPort;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
