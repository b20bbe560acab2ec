package io.sluice.server.naming.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.Subscriber;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A service's subscribers across the cluster, as Nacos's {@code aggregation=true} (its default)
 * lists them: a client subscribes through the one node its connection is held by, so the node
 * answering asks every other member for its own ({@code aggregation=false}, with the caller's
 * token), and pages the merged list, sorted by address, each entry naming its {@code node}. Members
 * that did not answer are named in {@code missing}.
 *
 * <p>Each member is asked for at most the first {@code pageNo × pageSize} of its subscribers, and
 * at most {@value #MAX_PER_MEMBER}: the merged pages are exact through the first {@value
 * #MAX_PER_MEMBER} subscribers of each member; {@code count} is always the full total.
 */
final class ClusterSubscribers {
  static final int MAX_PER_MEMBER = ServiceEndpoints.MAX_V1_PAGE_SIZE;
  private static final String PATH = "/nacos/v1/ns/service/subscribers";

  private final NamingService naming;
  private final MemberCalls members;
  private final ObjectMapper json;

  ClusterSubscribers(NamingService naming, MemberCalls members, ObjectMapper json) {
    this.naming = naming;
    this.members = members;
    this.json = json;
  }

  /** Whether there is any other member to ask. */
  boolean clustered() {
    return !members.others().isEmpty();
  }

  CompletionStage<Answer> subscribers(NamingParams params, String token) {
    ServiceKey service = params.service();
    int pageNo = params.page("pageNo", "1", Integer.MAX_VALUE);
    int pageSize = params.page("pageSize", "1000", ServiceEndpoints.MAX_V1_PAGE_SIZE);
    int wanted = (int) Math.min((long) pageNo * pageSize, MAX_PER_MEMBER);
    String query =
        PATH
            + "?aggregation=false&namespaceId="
            + encode(service.namespace())
            + "&groupName="
            + encode(service.group())
            + "&serviceName="
            + encode(service.name())
            + "&pageNo=1&pageSize="
            + wanted;
    return members
        .askOthers(query, token, this::read)
        .thenApplyAsync(
            gathered -> {
              List<ObjectNode> all = new ArrayList<>();
              List<Subscriber.Client> own = naming.subscribers(service);
              long count = own.size();
              String self = members.selfAddress();
              for (Subscriber.Client client : own.subList(0, Math.min(own.size(), wanted))) {
                ObjectNode node = json.createObjectNode();
                ServiceEndpoints.writeSubscriber(node, client, service);
                all.add(node.put("node", self));
              }
              for (MemberCalls.Answer<JsonNode> answer : gathered.answers()) {
                JsonNode theirs = answer.value();
                count += theirs.path("count").asLong();
                for (JsonNode subscriber : theirs.path("subscribers")) {
                  if (subscriber instanceof ObjectNode node) {
                    all.add(node.put("node", answer.address()));
                  }
                }
              }
              all.sort(
                  Comparator.comparing((ObjectNode n) -> n.path("ip").asText())
                      .thenComparingInt(n -> n.path("port").asInt())
                      .thenComparing(n -> n.path("node").asText()));
              ObjectNode out = json.createObjectNode();
              out.put("count", count);
              ArrayNode page = out.putArray("subscribers");
              long from = (long) (pageNo - 1) * pageSize;
              for (long i = from; i < Math.min(all.size(), from + pageSize); i++) {
                page.add(all.get((int) i));
              }
              out.set("missing", json.valueToTree(gathered.missing()));
              return Answer.json(out.toString());
            },
            members.worker());
  }

  /**
   * A member's page: {@code {"count":N,"subscribers":[...]}}; throws when it is not (the member is
   * then named missing, {@link MemberCalls#ask}).
   */
  private JsonNode read(String body) throws JsonProcessingException {
    JsonNode page = json.readTree(body);
    if (page == null
        || !page.path("count").isIntegralNumber()
        || !page.path("subscribers").isArray()) {
      throw new IllegalArgumentException("not a page of subscribers");
    }
    return page;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
