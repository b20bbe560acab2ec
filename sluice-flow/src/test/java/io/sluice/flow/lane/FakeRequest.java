package io.sluice.flow.lane;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** A request as entry rules see it: headers, cookies and query parameters. */
final class FakeRequest {
  static final RequestReader<FakeRequest> READER =
      new RequestReader<>() {
        @Override
        public String header(FakeRequest request, String name) {
          return request.headers.get(name.toLowerCase(Locale.ROOT));
        }

        @Override
        public String cookie(FakeRequest request, String name) {
          return request.cookies.get(name);
        }

        @Override
        public String query(FakeRequest request, String name) {
          return request.query.get(name);
        }
      };

  final Map<String, String> headers = new HashMap<>();
  final Map<String, String> cookies = new HashMap<>();
  final Map<String, String> query = new HashMap<>();

  FakeRequest header(String name, String value) {
    headers.put(name.toLowerCase(Locale.ROOT), value);
    return this;
  }

  FakeRequest cookie(String name, String value) {
    cookies.put(name, value);
    return this;
  }

  FakeRequest query(String name, String value) {
    query.put(name, value);
    return this;
  }
}
