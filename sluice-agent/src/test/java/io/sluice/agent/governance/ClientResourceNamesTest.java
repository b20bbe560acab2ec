package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class ClientResourceNamesTest {
  @Test
  void usesTheCallersUriTemplateWhenKnown() {
    assertThat(
            ClientResourceNames.of(
                "GET",
                URI.create("http://orders:8080/orders/42?x=1"),
                "http://orders:{port}/orders/{id}?x={x}"))
        .isEqualTo("GET orders:8080/orders/{id}");
  }

  @Test
  void collapsesIdentifierSegmentsWhenThereIsNoTemplate() {
    assertThat(
            ClientResourceNames.of(
                "DELETE",
                URI.create(
                    "https://api.example.com/users/123/keys/550e8400-e29b-41d4-a716-446655440000"),
                null))
        .isEqualTo("DELETE api.example.com/users/{id}/keys/{id}");
    assertThat(
            ClientResourceNames.of(
                "GET", URI.create("http://h/objects/5f2b9c1e8d3a4b6c7d8e9f00/v2/items"), null))
        .isEqualTo("GET h/objects/{id}/v2/items");
  }

  @Test
  void normalisesATemplateWithoutVariablesLikeASentPath() {
    assertThat(
            ClientResourceNames.of(
                "GET", URI.create("http://h:81/orders/7"), "http://h:81/orders/7?x=1"))
        .isEqualTo("GET h:81/orders/{id}");
  }

  @Test
  void namesACallWithoutAPortByTheHostAlone() {
    assertThat(ClientResourceNames.of("GET", URI.create("http://orders/orders/7"), null))
        .isEqualTo("GET orders/orders/{id}");
  }

  @Test
  void keepsWordsAndShortHexLookingWords() {
    assertThat(ClientResourceNames.of("GET", URI.create("http://h/cafe/beef/add"), null))
        .isEqualTo("GET h/cafe/beef/add");
  }

  @Test
  void anEmptyPathIsTheRoot() {
    assertThat(ClientResourceNames.of("GET", URI.create("http://h:81"), null))
        .isEqualTo("GET h:81/");
  }

  @Test
  void takesOnlyThePathOfATemplate() {
    assertThat(ClientResourceNames.pathOfTemplate("/a/{b}#frag")).isEqualTo("/a/{b}");
    assertThat(ClientResourceNames.pathOfTemplate("http://h")).isEqualTo("/");
    assertThat(ClientResourceNames.pathOfTemplate("{base}/a")).isNull();
  }
}
