package io.sluice.server.protocol.http;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.LinkedHashMap;

/**
 * Coverage-guided fuzzing of the form and query-string decoder every HTTP endpoint reads its
 * parameters with: any bytes decode or are refused with an {@link HttpApiException} (a 400), never
 * another exception. Replays the committed corpus unless {@code JAZZER_FUZZ=1}.
 */
class FormFuzzTest {
  @FuzzTest(maxDuration = "5s")
  void formBytesDecodeOrAreRefused(byte[] form) {
    try {
      FormDecoder.decode(form, new LinkedHashMap<>(), 0);
    } catch (HttpApiException refused) {
      // the one way to refuse
    }
  }
}
