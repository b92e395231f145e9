package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 and its private key, made at run time with the JDK's
 * {@code keytool} and written as PEM files for a {@code redis-server} started with TLS. The certificate is
 * its own authority: clients trust it directly. Nothing here is ever committed.
 *
 * @param certificate the certificate, PEM; the trust store of the clients
 * @param privateKey the private key, unencrypted PKCS#8 PEM
 */
public record RedisTlsFiles(Path certificate, Path privateKey) {

	private static final String PASSWORD = "ratelimit-test";

	/**
	 * Generates a key pair and a self-signed certificate valid for a day for {@code 127.0.0.1} and
	 * {@code localhost}, written into {@code directory}.
	 * @param directory where to write {@code redis.crt} and {@code redis.key}
	 * @return the files
	 */
	public static RedisTlsFiles generate(Path directory) {
		Path keyStore = directory.resolve("redis.p12");
		String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
		run(List.of(keytool, "-genkeypair", "-alias", "redis", "-keyalg", "EC", "-groupname", "secp256r1",
				"-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "1", "-storetype",
				"PKCS12", "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD));
		try (InputStream in = Files.newInputStream(keyStore)) {
			KeyStore store = KeyStore.getInstance("PKCS12");
			store.load(in, PASSWORD.toCharArray());
			Certificate certificate = store.getCertificate("redis");
			Key key = store.getKey("redis", PASSWORD.toCharArray());
			RedisTlsFiles files = new RedisTlsFiles(directory.resolve("redis.crt"), directory.resolve("redis.key"));
			Files.writeString(files.certificate(), pem("CERTIFICATE", certificate.getEncoded()),
					StandardCharsets.US_ASCII);
			Files.writeString(files.privateKey(), pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
			Files.delete(keyStore);
			return files;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Could not read the key pair keytool made", ex);
		}
	}

	/**
	 * Returns the arguments that make a {@code redis-server} serve TLS on {@code tlsPort} with these files,
	 * without asking clients for certificates.
	 * @param tlsPort the port for TLS connections
	 * @return the arguments
	 */
	public List<String> serverArguments(int tlsPort) {
		return List.of("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", this.certificate.toString(),
				"--tls-key-file", this.privateKey.toString(), "--tls-ca-cert-file", this.certificate.toString(),
				"--tls-auth-clients", "no");
	}

	private static String pem(String type, byte[] der) {
		String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
		return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException("keytool failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run keytool", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running keytool", ex);
		}
	}

}
