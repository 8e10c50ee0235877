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
 * <p>A writer of tables at POST /tideway/write (the tables Tideway's Iceberg source reads in
 * formats PyIceberg does not write, ORC and Avro): {"warehouse": folder, "table": "ns.table",
 * "schema": Iceberg schema JSON, "partition": [[transform, column]] (identity, day, bucket[N]),
 * "properties": {table properties: write.format.default...}, "steps": [step]} where a step is
 * {"append": [[canonical values]]} (a data file per partition), {"delete": {"columns": [names],
 * "rows": [[values]]}} (an equality delete file, unpartitioned tables), {"position_delete":
 * [[file index, pos]]} (a position delete file; file index: the data files appended, in order),
 * {"rename": [old, new]}, {"widen": [name, type]} or {"add": [name, type]}. A HadoopCatalog on the
 * warehouse folder holds the table (replaced when there). Answers {"metadata": the current
 * metadata file, "files": [the data files appended, in order]}.
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
    context.addServlet(new ServletHolder(new WriteServlet()), "/tideway/write");
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

  static final class WriteServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      try {
        ObjectNode out = write(JSON.readTree(req.getInputStream()));
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

  static ObjectNode write(JsonNode request) throws Exception {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("peer", Map.of(CatalogProperties.WAREHOUSE_LOCATION, request.get("warehouse").asText()));
    try {
      TableIdentifier ident = TableIdentifier.parse(request.get("table").asText());
      if (catalog.tableExists(ident)) catalog.dropTable(ident, true);
      Schema schema = org.apache.iceberg.SchemaParser.fromJson(JSON.writeValueAsString(request.get("schema")));
      org.apache.iceberg.PartitionSpec.Builder specBuilder = org.apache.iceberg.PartitionSpec.builderFor(schema);
      if (request.has("partition")) {
        for (JsonNode p : request.get("partition")) {
          String transform = p.get(0).asText();
          String column = p.get(1).asText();
          if (transform.equals("identity")) specBuilder.identity(column);
          else if (transform.equals("day")) specBuilder.day(column);
          else if (transform.startsWith("bucket[")) specBuilder.bucket(column, Integer.parseInt(transform.substring(7, transform.length() - 1)));
          else throw new IllegalArgumentException("unknown transform " + transform);
        }
      }
      Table table = catalog.createTable(ident, schema, specBuilder.build(), stringMap(request.get("properties")));
      List<org.apache.iceberg.DataFile> appended = new java.util.ArrayList<>();
      int operation = 0;
      for (JsonNode step : request.get("steps")) {
        table.refresh();
        Schema current = table.schema();
        org.apache.iceberg.PartitionSpec spec = table.spec();
        org.apache.iceberg.FileFormat dataFormat = org.apache.iceberg.FileFormat.fromString(
            table.properties().getOrDefault("write.format.default", "parquet"));
        org.apache.iceberg.FileFormat deleteFormat = org.apache.iceberg.FileFormat.fromString(
            table.properties().getOrDefault("write.delete.format.default", dataFormat.name()));
        org.apache.iceberg.io.OutputFileFactory files = org.apache.iceberg.io.OutputFileFactory.builderFor(table, 1, ++operation).format(dataFormat).build();
        if (step.has("append")) {
          Map<org.apache.iceberg.PartitionKey, List<Record>> byPartition = new java.util.LinkedHashMap<>();
          for (JsonNode row : step.get("append")) {
            Record r = org.apache.iceberg.data.GenericRecord.create(current);
            List<Types.NestedField> cols = current.columns();
            for (int i = 0; i < cols.size(); i++) r.set(i, fromCanon(cols.get(i).type(), row.get(i)));
            org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(spec, current);
            key.partition(new org.apache.iceberg.data.InternalRecordWrapper(current.asStruct()).wrap(r));
            byPartition.computeIfAbsent(key.copy(), k -> new java.util.ArrayList<>()).add(r);
          }
          org.apache.iceberg.data.GenericAppenderFactory factory =
              new org.apache.iceberg.data.GenericAppenderFactory(table, current, spec, table.properties(), null, null, null);
          org.apache.iceberg.AppendFiles append = table.newAppend();
          for (Map.Entry<org.apache.iceberg.PartitionKey, List<Record>> e : byPartition.entrySet()) {
            org.apache.iceberg.StructLike partition = spec.isUnpartitioned() ? null : e.getKey();
            org.apache.iceberg.io.DataWriter<Record> w = factory.newDataWriter(files.newOutputFile(spec, partition), dataFormat, partition);
            try (w) {
              for (Record r : e.getValue()) w.write(r);
            }
            append.appendFile(w.toDataFile());
            appended.add(w.toDataFile());
          }
          append.commit();
        } else if (step.has("delete")) {
          List<String> names = new java.util.ArrayList<>();
          for (JsonNode n : step.get("delete").get("columns")) names.add(n.asText());
          Schema keySchema = current.select(names);
          int[] ids = keySchema.columns().stream().mapToInt(Types.NestedField::fieldId).toArray();
          org.apache.iceberg.data.GenericAppenderFactory factory =
              new org.apache.iceberg.data.GenericAppenderFactory(table, current, spec, table.properties(), ids, keySchema, null);
          org.apache.iceberg.deletes.EqualityDeleteWriter<Record> w =
              factory.newEqDeleteWriter(files.newOutputFile(spec, null), deleteFormat, null);
          try (w) {
            for (JsonNode row : step.get("delete").get("rows")) {
              Record r = org.apache.iceberg.data.GenericRecord.create(keySchema);
              List<Types.NestedField> cols = keySchema.columns();
              for (int i = 0; i < cols.size(); i++) r.set(i, fromCanon(cols.get(i).type(), row.get(i)));
              w.write(r);
            }
          }
          table.newRowDelta().addDeletes(w.toDeleteFile()).commit();
        } else if (step.has("position_delete")) {
          org.apache.iceberg.data.GenericAppenderFactory factory =
              new org.apache.iceberg.data.GenericAppenderFactory(table, current, spec, table.properties(), null, null, null);
          JsonNode first = step.get("position_delete").get(0);
          org.apache.iceberg.DataFile target = appended.get(first.get(0).asInt());
          org.apache.iceberg.StructLike partition = spec.isUnpartitioned() ? null : target.partition();
          org.apache.iceberg.deletes.PositionDeleteWriter<Record> w =
              factory.newPosDeleteWriter(files.newOutputFile(spec, partition), deleteFormat, partition);
          try (w) {
            org.apache.iceberg.deletes.PositionDelete<Record> d = org.apache.iceberg.deletes.PositionDelete.create();
            for (JsonNode pd : step.get("position_delete")) {
              w.write(d.set(appended.get(pd.get(0).asInt()).location(), pd.get(1).asLong(), null));
            }
          }
          table.newRowDelta().addDeletes(w.toDeleteFile()).commit();
        } else if (step.has("rename")) {
          table.updateSchema().renameColumn(step.get("rename").get(0).asText(), step.get("rename").get(1).asText()).commit();
        } else if (step.has("widen")) {
          table.updateSchema().updateColumn(step.get("widen").get(0).asText(), Types.fromPrimitiveString(step.get("widen").get(1).asText())).commit();
        } else if (step.has("add")) {
          table.updateSchema().addColumn(step.get("add").get(0).asText(), Types.fromPrimitiveString(step.get("add").get(1).asText())).commit();
        } else {
          throw new IllegalArgumentException("unknown step " + step);
        }
      }
      table.refresh();
      ObjectNode out = NODES.objectNode();
      out.put("metadata", ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation());
      ArrayNode paths = out.putArray("files");
      for (org.apache.iceberg.DataFile f : appended) paths.add(f.location());
      return out;
    } finally {
      catalog.close();
    }
  }

  /** A canonical JSON value (as canon writes them) as Iceberg's generic value of `type`. */
  static Object fromCanon(Type type, JsonNode v) {
    if (v == null || v.isNull()) return null;
    switch (type.typeId()) {
      case BOOLEAN:
        return v.asBoolean();
      case INTEGER:
        return Integer.parseInt(v.asText());
      case LONG:
        return Long.parseLong(v.asText());
      case FLOAT:
        return (float) v.asDouble();
      case DOUBLE:
        return v.asDouble();
      case DECIMAL:
        return new BigDecimal(v.asText()).setScale(((Types.DecimalType) type).scale());
      case STRING:
        return v.asText();
      case UUID:
        return UUID.fromString(v.asText());
      case BINARY:
        return ByteBuffer.wrap(java.util.HexFormat.of().parseHex(v.asText()));
      case FIXED:
        return java.util.HexFormat.of().parseHex(v.asText());
      case DATE:
        return LocalDate.parse(v.asText());
      case TIME:
        return LocalTime.parse(v.asText());
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? OffsetDateTime.parse(v.asText()) : LocalDateTime.parse(v.asText());
      case LIST:
        {
          List<Object> out = new java.util.ArrayList<>();
          for (JsonNode e : v) out.add(fromCanon(type.asListType().elementType(), e));
          return out;
        }
      case MAP:
        {
          Map<Object, Object> out = new java.util.LinkedHashMap<>();
          for (JsonNode e : v) out.put(fromCanon(type.asMapType().keyType(), e.get(0)), fromCanon(type.asMapType().valueType(), e.get(1)));
          return out;
        }
      case STRUCT:
        {
          Record r = org.apache.iceberg.data.GenericRecord.create(type.asStructType());
          List<Types.NestedField> fs = type.asStructType().fields();
          for (int i = 0; i < fs.size(); i++) r.set(i, fromCanon(fs.get(i).type(), v.get(i)));
          return r;
        }
      default:
        throw new IllegalArgumentException("no canonical form of " + type);
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
