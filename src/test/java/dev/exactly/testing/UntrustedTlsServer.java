package dev.exactly.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A loopback PostgreSQL stand-in whose certificate no trust store knows: it accepts a client's
 * SSLRequest (PostgreSQL protocol, "SSL Session Encryption": length 8, code 80877103) with 'S',
 * then offers TLS with a fresh self-signed certificate (made by the JDK's keytool), as a
 * database signed by a private CA (direct RDS, to a JDK without the RDS CA) looks to a client
 * that verifies. It never speaks PostgreSQL past that.
 */
public final class UntrustedTlsServer implements AutoCloseable {

    private static final char[] PASS = "changeit".toCharArray();

    private final ServerSocket server;
    private final Thread acceptor;
    private final AtomicInteger handshakes = new AtomicInteger();

    /**
     * Starts listening on 127.0.0.1 on a free port.
     *
     * @throws IOException              when no socket or certificate can be made
     * @throws GeneralSecurityException when the TLS context cannot be built
     * @throws InterruptedException     when interrupted while keytool runs
     */
    public UntrustedTlsServer() throws IOException, GeneralSecurityException, InterruptedException {
        SSLContext tls = selfSigned();
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    if (in.readInt() == 8 && in.readInt() == 80877103) {
                        s.getOutputStream().write('S');
                        s.getOutputStream().flush();
                        SSLSocket t = (SSLSocket) tls.getSocketFactory().createSocket(s, (InputStream) null, true);
                        t.setUseClientMode(false);
                        handshakes.incrementAndGet();
                        try {
                            t.startHandshake();
                        } catch (IOException refused) {
                            // the client refuses the certificate
                        }
                    }
                } catch (IOException e) {
                    // closed, or the client went away
                }
            }
        }, "untrusted-tls-postgres");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the port on 127.0.0.1 */
    public int port() {
        return server.getLocalPort();
    }

    /** @return how many clients got as far as the TLS handshake */
    public int handshakes() {
        return handshakes.get();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        server.close();
        acceptor.join(TimeUnit.SECONDS.toMillis(5));
    }

    private static SSLContext selfSigned() throws IOException, GeneralSecurityException, InterruptedException {
        Path dir = Files.createTempDirectory("exactly-tls");
        Path store = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "pg", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", new String(PASS), "-keypass", new String(PASS)).redirectErrorStream(true).start();
        String out = new String(keytool.getInputStream().readAllBytes());
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IOException("keytool failed: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASS);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASS);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        Files.deleteIfExists(store);
        Files.deleteIfExists(dir);
        return ctx;
    }
}
