package io.sluice.agent.reporting;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One kept-alive HTTP/1.1 connection to the server that posts a form body and reads the short
 * answer, written for a caller that runs once every few seconds on code that never gets hot: the
 * request is one write of reused bytes, the answer one read into a fixed buffer, and the head is
 * parsed only for the status, {@code Content-Length} and {@code Connection: close}.
 *
 * <p>Bounds: a connect and each read wait at most the timeout; an answer longer than {@value
 * #MAX_ANSWER_BYTES} bytes, chunked, or without a length is read no further and its connection
 * closed (the server's answers to a report are a few bytes). A kept connection the server closed
 * meanwhile is found on the next post and replaced once.
 *
 * <p>Not thread-safe: the reporting thread's own.
 */
final class ReportConnection implements AutoCloseable {
  static final int MAX_ANSWER_BYTES = 4_096;

  private final String host;
  private final int port;
  private final boolean tls;
  private final String hostHeader;
  private final int timeoutMillis;
  private final FormJson head = new FormJson(512);
  private final byte[] answer = new byte[MAX_ANSWER_BYTES];
  private Socket socket;

  /** The status of an answer and, unless it is 200, the start of its text. */
  record Answer(int status, String text) {}

  /**
   * @param base {@code http://host:port} or {@code https://host:port}
   */
  ReportConnection(String base, int timeoutMillis) {
    URI uri = URI.create(base);
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("not a server address: " + base);
    }
    this.tls = "https".equalsIgnoreCase(uri.getScheme());
    this.host = uri.getHost();
    this.port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
    this.hostHeader = uri.getPort() > 0 ? host + ":" + port : host;
    this.timeoutMillis = timeoutMillis;
  }

  /** Posts {@code body[0, length)} as a form to {@code pathAndQuery}. */
  Answer post(String pathAndQuery, byte[] body, int length) throws IOException {
    head.reset();
    head.raw("POST ").raw(pathAndQuery).raw(" HTTP/1.1\r\nHost: ").raw(hostHeader);
    head.raw("\r\nContent-Type: application/x-www-form-urlencoded; charset=UTF-8");
    head.raw("\r\nContent-Length: ").number(length).raw("\r\n\r\n");
    boolean kept = socket != null;
    try {
      return exchange(body, length);
    } catch (java.net.SocketTimeoutException e) {
      close();
      throw e; // a server that does not answer is not asked twice
    } catch (IOException e) {
      close();
      if (!kept) {
        throw e;
      }
      // The server closed the kept connection while it was idle: once more on a new one. A
      // report it did take is stored again for the same seconds, which changes nothing.
      return exchange(body, length);
    }
  }

  private Answer exchange(byte[] body, int length) throws IOException {
    Socket s = connected();
    OutputStream out = s.getOutputStream();
    out.write(head.array(), 0, head.length());
    out.write(body, 0, length);
    out.flush();
    InputStream in = s.getInputStream();
    int n = 0;
    int headEnd = -1;
    while (headEnd < 0) {
      if (n == answer.length) {
        close();
        throw new IOException("answer head longer than " + MAX_ANSWER_BYTES + " bytes");
      }
      int r = in.read(answer, n, answer.length - n);
      if (r < 0) {
        close();
        throw new IOException("connection closed before an answer");
      }
      n += r;
      headEnd = headEnd(n);
    }
    int status = status();
    long contentLength = -1;
    boolean keep = true;
    int line = indexOf((byte) '\n', 0, headEnd) + 1;
    while (line < headEnd - 2) {
      int end = indexOf((byte) '\n', line, headEnd);
      if (startsWithIgnoringCase(line, end, "content-length:")) {
        contentLength = number(line + "content-length:".length(), end);
      } else if (startsWithIgnoringCase(line, end, "transfer-encoding:")
          || (startsWithIgnoringCase(line, end, "connection:") && contains(line, end, "close"))) {
        keep = false;
      }
      line = end + 1;
    }
    int bodyStart = headEnd;
    if (contentLength < 0 || bodyStart + contentLength > answer.length) {
      keep = false;
    } else {
      while (n < bodyStart + contentLength) {
        int r = in.read(answer, n, (int) (bodyStart + contentLength - n));
        if (r < 0) {
          keep = false;
          break;
        }
        n += r;
      }
    }
    if (!keep) {
      close();
    }
    String text =
        status == 200
            ? ""
            : new String(
                    answer,
                    bodyStart,
                    Math.max(0, Math.min(n - bodyStart, 200)),
                    StandardCharsets.UTF_8)
                .trim();
    return new Answer(status, text);
  }

  private Socket connected() throws IOException {
    if (socket == null) {
      Socket s = tls ? SSLSocketFactory.getDefault().createSocket() : new Socket();
      try {
        s.connect(new InetSocketAddress(host, port), timeoutMillis);
        s.setSoTimeout(timeoutMillis);
        s.setTcpNoDelay(true);
        if (s instanceof SSLSocket ssl) {
          SSLParameters parameters = ssl.getSSLParameters();
          parameters.setEndpointIdentificationAlgorithm("HTTPS");
          ssl.setSSLParameters(parameters);
          ssl.startHandshake();
        }
      } catch (IOException | RuntimeException e) {
        s.close();
        throw e;
      }
      socket = s;
    }
    return socket;
  }

  /** The index just past the blank line ending the head, or -1. */
  private int headEnd(int n) {
    for (int i = 3; i < n; i++) {
      if (answer[i] == '\n' && answer[i - 1] == '\r' && answer[i - 2] == '\n') {
        return i + 1;
      }
    }
    return -1;
  }

  /** The status code of "HTTP/1.1 200 OK". */
  private int status() throws IOException {
    int space = indexOf((byte) ' ', 0, answer.length);
    if (space < 0 || space + 4 > answer.length || answer[0] != 'H') {
      close();
      throw new IOException("not an HTTP answer");
    }
    return (int) number(space + 1, space + 4);
  }

  private int indexOf(byte b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (answer[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private boolean startsWithIgnoringCase(int from, int to, String prefix) {
    if (to - from < prefix.length()) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (Character.toLowerCase((char) answer[from + i]) != prefix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private boolean contains(int from, int to, String lowerCase) {
    for (int i = from; i + lowerCase.length() <= to; i++) {
      if (startsWithIgnoringCase(i, to, lowerCase)) {
        return true;
      }
    }
    return false;
  }

  /** The decimal number in {@code [from, to)}, spaces and the line's end skipped; -1 if none. */
  private long number(int from, int to) {
    long value = -1;
    for (int i = from; i < to; i++) {
      byte b = answer[i];
      if (b >= '0' && b <= '9') {
        value = (value < 0 ? 0 : value * 10) + (b - '0');
        if (value > Integer.MAX_VALUE) {
          return Integer.MAX_VALUE;
        }
      } else if (value >= 0) {
        break;
      }
    }
    return value;
  }

  @Override
  public void close() {
    Socket s = socket;
    socket = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing: nothing more to do
      }
    }
  }
}
