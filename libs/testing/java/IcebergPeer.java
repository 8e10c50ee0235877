import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.ResolvingFileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Apache Iceberg's Java library as Tideway's tests' peer, one JVM per suite run
 * (libs/testing/src/iceberg-java.ts starts it): an Iceberg REST catalog (Iceberg's own
 * RESTCatalogAdapter and RESTCatalogServlet, from iceberg-core's test jar, in front of a
 * JdbcCatalog on a SQLite file) on a loopback port, and a reader of tables on the same port at
 * POST /tideway/read.
 *
 * <p>The reader takes {"metadata": file} (a table by its metadata file) or {"catalog": {type:
 * hadoop|jdbc|sql|rest, ...Iceberg catalog properties}, "name": catalog name, "table":
 * "ns.table"}, with optional "io": FileIO properties (s3.endpoint and the like), and answers
 * {"schema": [[name, type, required]], "identifier": [names], "rows": [[values]]} read by
 * IcebergGenerics, which applies equality and position deletes. Values are canonical as the
 * PyIceberg peer writes them (iceberg_peer.py): integers and decimals as strings, floats as
 * numbers, bytes as hex, dates and times as ISO text, lists as arrays, maps and structs as arrays
 * of [key, value].
 *
 * <p>Usage: IcebergPeer PORT WORKDIR [KEY=VALUE...] (PORT 0: any free port; KEY=VALUE: more
 * properties of the REST catalog's JdbcCatalog, such as a warehouse on S3 with its s3.* keys).
 * Prints "listening PORT" when ready and serves until it is stopped (SIGTERM).
 */
public class IcebergPeer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String workdir = args[1];
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + workdir + "/rest-catalog.db");
    props.put(CatalogProperties.WAREHOUSE_LOCATION, workdir + "/rest-warehouse");
    props.put(CatalogProperties.FILE_IO_IMPL, ResolvingFileIO.class.getName());
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1"); // SQLite: one connection, commits in turn
    for (int i = 2; i < args.length; i++) { // KEY=VALUE: more catalog properties (a warehouse on S3 and its s3.* keys)
      int eq = args[i].indexOf('=');
      props.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    JdbcCatalog backend = new JdbcCatalog();
    backend.setConf(new Configuration());
    backend.initialize("rest", props);

    Server server = new Server(new InetSocketAddress("127.0.0.1", port));
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
    context.addServlet(new ServletHolder(new ReadServlet()), "/tideway/read");
    server.setHandler(context);
    server.start();
    System.out.println("listening " + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    System.out.flush();
    server.join();
  }

  static final class ReadServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      try {
        JsonNode request = JSON.readTree(req.getInputStream());
        ObjectNode out = read(request);
        resp.setStatus(200);
        resp.setContentType("application/json");
        JSON.writeValue(resp.getOutputStream(), out);
      } catch (Throwable e) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        resp.setStatus(500);
        resp.setContentType("text/plain");
        resp.getWriter().write(trace.toString());
      }
    }
  }

  private static Map<String, String> stringMap(JsonNode node) {
    Map<String, String> out = new HashMap<>();
    if (node == null) return out;
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  static ObjectNode read(JsonNode request) throws Exception {
    Map<String, String> io = stringMap(request.get("io"));
    Table table;
    Catalog catalog = null;
    if (request.has("metadata")) {
      ResolvingFileIO fileIO = new ResolvingFileIO();
      fileIO.setConf(new Configuration());
      fileIO.initialize(io);
      String file = request.get("metadata").asText();
      table = new BaseTable(new StaticTableOperations(file, fileIO), file);
    } else {
      Map<String, String> props = stringMap(request.get("catalog"));
      props.putAll(io);
      String type = props.remove("type");
      props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, ResolvingFileIO.class.getName()); // s3:// and local locations alike
      String name = request.has("name") ? request.get("name").asText() : "tideway";
      switch (type) {
        case "hadoop":
          catalog = new HadoopCatalog();
          break;
        case "jdbc":
        case "sql":
          catalog = new JdbcCatalog();
          props.put("jdbc.init-catalog-tables", "false");
          break;
        case "rest":
          catalog = new RESTCatalog();
          break;
        default:
          throw new IllegalArgumentException("unknown catalog type " + type);
      }
      // HadoopCatalog takes Hadoop's Configurable, the JDBC and REST catalogs Iceberg's own
      if (catalog instanceof org.apache.hadoop.conf.Configurable c) c.setConf(new Configuration());
      else if (catalog instanceof org.apache.iceberg.hadoop.Configurable<?>) {
        @SuppressWarnings("unchecked")
        org.apache.iceberg.hadoop.Configurable<Object> c = (org.apache.iceberg.hadoop.Configurable<Object>) catalog;
        c.setConf(new Configuration());
      }
      catalog.initialize(name, props);
      table = catalog.loadTable(TableIdentifier.parse(request.get("table").asText()));
    }
    try {
      Schema schema = table.schema();
      ObjectNode out = NODES.objectNode();
      ArrayNode fields = out.putArray("schema");
      for (Types.NestedField f : schema.columns()) {
        fields.addArray().add(f.name()).add(f.type().toString()).add(f.isRequired());
      }
      ArrayNode identifier = out.putArray("identifier");
      for (Integer id : schema.identifierFieldIds()) identifier.add(schema.findColumnName(id));
      ArrayNode rows = out.putArray("rows");
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record r : records) {
          ArrayNode row = rows.addArray();
          List<Types.NestedField> cols = schema.columns();
          for (int i = 0; i < cols.size(); i++) row.add(canon(cols.get(i).type(), r.get(i)));
        }
      }
      return out;
    } finally {
      if (catalog instanceof AutoCloseable c) c.close();
    }
  }

  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");

  /** Python's isoformat of a time: seconds, and six digits of fraction when there is one. */
  private static String time(LocalTime t) {
    return (t.getNano() == 0 ? SECONDS : MICROS).format(t);
  }

  static JsonNode canon(Type type, Object v) {
    if (v == null) return NODES.nullNode();
    switch (type.typeId()) {
      case BOOLEAN:
        return NODES.booleanNode((Boolean) v);
      case INTEGER:
      case LONG:
        return NODES.textNode(v.toString());
      case FLOAT:
        return NODES.numberNode((Float) v);
      case DOUBLE:
        return NODES.numberNode((Double) v);
      case DECIMAL:
        return NODES.textNode(((BigDecimal) v).toPlainString());
      case STRING:
        return NODES.textNode(v.toString());
      case UUID:
        return NODES.textNode(((UUID) v).toString());
      case BINARY:
      case FIXED:
        {
          ByteBuffer b = v instanceof ByteBuffer bb ? bb.duplicate() : ByteBuffer.wrap((byte[]) v);
          StringBuilder hex = new StringBuilder();
          while (b.hasRemaining()) hex.append(String.format("%02x", b.get()));
          return NODES.textNode(hex.toString());
        }
      case DATE:
        return NODES.textNode(((LocalDate) v).toString());
      case TIME:
        return NODES.textNode(time((LocalTime) v));
      case TIMESTAMP:
        if (v instanceof OffsetDateTime o) {
          return NODES.textNode(o.toLocalDate() + "T" + time(o.toLocalTime()) + (o.getOffset().getTotalSeconds() == 0 ? "+00:00" : o.getOffset().toString()));
        }
        {
          LocalDateTime t = (LocalDateTime) v;
          return NODES.textNode(t.toLocalDate() + "T" + time(t.toLocalTime()));
        }
      case LIST:
        {
          ArrayNode a = NODES.arrayNode();
          Type element = type.asListType().elementType();
          for (Object e : (List<?>) v) a.add(canon(element, e));
          return a;
        }
      case MAP:
        {
          ArrayNode a = NODES.arrayNode();
          Types.MapType m = type.asMapType();
          for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
            a.addArray().add(canon(m.keyType(), e.getKey())).add(canon(m.valueType(), e.getValue()));
          }
          return a;
        }
      case STRUCT:
        {
          ArrayNode a = NODES.arrayNode();
          Record r = (Record) v;
          List<Types.NestedField> fs = type.asStructType().fields();
          for (int i = 0; i < fs.size(); i++) a.addArray().add(fs.get(i).name()).add(canon(fs.get(i).type(), r.get(i)));
          return a;
        }
      default:
        return NODES.textNode(v.toString());
    }
  }
}
