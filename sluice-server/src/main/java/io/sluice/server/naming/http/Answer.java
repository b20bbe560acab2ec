package io.sluice.server.naming.http;

/**
 * What a naming endpoint answers on success.
 *
 * @param body the v1 answer, and the v2 envelope's {@code data}
 * @param json whether {@code body} is JSON (else plain text, quoted as a JSON string in v2)
 * @param bare whether v2 sends it without the envelope too (beats and patches, as Nacos does)
 */
record Answer(String body, boolean json, boolean bare) {
  static final Answer OK = new Answer("ok", false, false);

  static Answer json(String body) {
    return new Answer(body, true, false);
  }

  /** This answer, sent without the v2 envelope too. */
  Answer withoutEnvelope() {
    return new Answer(body, json, true);
  }
}
