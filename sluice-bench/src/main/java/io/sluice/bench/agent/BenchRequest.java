package io.sluice.bench.agent;

/**
 * An {@code HttpServletRequest} that answers one header, {@code x-user-id}, and nothing else: what
 * a hot-parameter rule with {@code "paramSource": {"header": "x-user-id"}} reads, without a servlet
 * container's own allocation in the measurement.
 */
@SuppressWarnings("deprecation")
final class BenchRequest implements jakarta.servlet.http.HttpServletRequest {
  private final String userId;

  BenchRequest(String userId) {
    this.userId = userId;
  }

  @Override
  public java.lang.String getAuthType() {
    return null;
  }

  @Override
  public jakarta.servlet.http.Cookie[] getCookies() {
    return null;
  }

  @Override
  public long getDateHeader(java.lang.String a0) {
    return 0;
  }

  @Override
  public java.lang.String getHeader(java.lang.String a0) {
    return "x-user-id".equalsIgnoreCase(a0) ? userId : null;
  }

  @Override
  public java.util.Enumeration<java.lang.String> getHeaders(java.lang.String a0) {
    return null;
  }

  @Override
  public java.util.Enumeration<java.lang.String> getHeaderNames() {
    return null;
  }

  @Override
  public int getIntHeader(java.lang.String a0) {
    return 0;
  }

  @Override
  public java.lang.String getMethod() {
    return null;
  }

  @Override
  public java.lang.String getPathInfo() {
    return null;
  }

  @Override
  public java.lang.String getPathTranslated() {
    return null;
  }

  @Override
  public java.lang.String getContextPath() {
    return null;
  }

  @Override
  public java.lang.String getQueryString() {
    return null;
  }

  @Override
  public java.lang.String getRemoteUser() {
    return null;
  }

  @Override
  public boolean isUserInRole(java.lang.String a0) {
    return false;
  }

  @Override
  public java.security.Principal getUserPrincipal() {
    return null;
  }

  @Override
  public java.lang.String getRequestedSessionId() {
    return null;
  }

  @Override
  public java.lang.String getRequestURI() {
    return null;
  }

  @Override
  public java.lang.StringBuffer getRequestURL() {
    return null;
  }

  @Override
  public java.lang.String getServletPath() {
    return null;
  }

  @Override
  public jakarta.servlet.http.HttpSession getSession(boolean a0) {
    return null;
  }

  @Override
  public jakarta.servlet.http.HttpSession getSession() {
    return null;
  }

  @Override
  public java.lang.String changeSessionId() {
    return null;
  }

  @Override
  public boolean isRequestedSessionIdValid() {
    return false;
  }

  @Override
  public boolean isRequestedSessionIdFromCookie() {
    return false;
  }

  @Override
  public boolean isRequestedSessionIdFromURL() {
    return false;
  }

  @Override
  public boolean authenticate(jakarta.servlet.http.HttpServletResponse a0)
      throws java.io.IOException, jakarta.servlet.ServletException {
    return false;
  }

  @Override
  public void login(java.lang.String a0, java.lang.String a1)
      throws jakarta.servlet.ServletException {}

  @Override
  public void logout() throws jakarta.servlet.ServletException {}

  @Override
  public java.util.Collection<jakarta.servlet.http.Part> getParts()
      throws java.io.IOException, jakarta.servlet.ServletException {
    return null;
  }

  @Override
  public jakarta.servlet.http.Part getPart(java.lang.String a0)
      throws java.io.IOException, jakarta.servlet.ServletException {
    return null;
  }

  @Override
  public <T extends jakarta.servlet.http.HttpUpgradeHandler> T upgrade(java.lang.Class<T> a0)
      throws java.io.IOException, jakarta.servlet.ServletException {
    return null;
  }

  @Override
  public java.lang.Object getAttribute(java.lang.String a0) {
    return null;
  }

  @Override
  public java.util.Enumeration<java.lang.String> getAttributeNames() {
    return null;
  }

  @Override
  public java.lang.String getCharacterEncoding() {
    return null;
  }

  @Override
  public void setCharacterEncoding(java.lang.String a0)
      throws java.io.UnsupportedEncodingException {}

  @Override
  public int getContentLength() {
    return 0;
  }

  @Override
  public long getContentLengthLong() {
    return 0;
  }

  @Override
  public java.lang.String getContentType() {
    return null;
  }

  @Override
  public jakarta.servlet.ServletInputStream getInputStream() throws java.io.IOException {
    return null;
  }

  @Override
  public java.lang.String getParameter(java.lang.String a0) {
    return null;
  }

  @Override
  public java.util.Enumeration<java.lang.String> getParameterNames() {
    return null;
  }

  @Override
  public java.lang.String[] getParameterValues(java.lang.String a0) {
    return null;
  }

  @Override
  public java.util.Map<java.lang.String, java.lang.String[]> getParameterMap() {
    return null;
  }

  @Override
  public java.lang.String getProtocol() {
    return null;
  }

  @Override
  public java.lang.String getScheme() {
    return null;
  }

  @Override
  public java.lang.String getServerName() {
    return null;
  }

  @Override
  public int getServerPort() {
    return 0;
  }

  @Override
  public java.io.BufferedReader getReader() throws java.io.IOException {
    return null;
  }

  @Override
  public java.lang.String getRemoteAddr() {
    return null;
  }

  @Override
  public java.lang.String getRemoteHost() {
    return null;
  }

  @Override
  public void setAttribute(java.lang.String a0, java.lang.Object a1) {}

  @Override
  public void removeAttribute(java.lang.String a0) {}

  @Override
  public java.util.Locale getLocale() {
    return null;
  }

  @Override
  public java.util.Enumeration<java.util.Locale> getLocales() {
    return null;
  }

  @Override
  public boolean isSecure() {
    return false;
  }

  @Override
  public jakarta.servlet.RequestDispatcher getRequestDispatcher(java.lang.String a0) {
    return null;
  }

  @Override
  public int getRemotePort() {
    return 0;
  }

  @Override
  public java.lang.String getLocalName() {
    return null;
  }

  @Override
  public java.lang.String getLocalAddr() {
    return null;
  }

  @Override
  public int getLocalPort() {
    return 0;
  }

  @Override
  public jakarta.servlet.ServletContext getServletContext() {
    return null;
  }

  @Override
  public jakarta.servlet.AsyncContext startAsync() throws java.lang.IllegalStateException {
    return null;
  }

  @Override
  public jakarta.servlet.AsyncContext startAsync(
      jakarta.servlet.ServletRequest a0, jakarta.servlet.ServletResponse a1)
      throws java.lang.IllegalStateException {
    return null;
  }

  @Override
  public boolean isAsyncStarted() {
    return false;
  }

  @Override
  public boolean isAsyncSupported() {
    return false;
  }

  @Override
  public jakarta.servlet.AsyncContext getAsyncContext() {
    return null;
  }

  @Override
  public jakarta.servlet.DispatcherType getDispatcherType() {
    return null;
  }

  @Override
  public java.lang.String getRequestId() {
    return null;
  }

  @Override
  public java.lang.String getProtocolRequestId() {
    return null;
  }

  @Override
  public jakarta.servlet.ServletConnection getServletConnection() {
    return null;
  }
}
