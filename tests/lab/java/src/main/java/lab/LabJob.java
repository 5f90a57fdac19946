package lab;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecordGenerator;
import org.apache.iceberg.types.Types;

/**
 * The lab's Flink writer. Two commands, both talking to the lab's own servers on 127.0.0.1:
 *
 * <pre>
 *   create table=ns.t kind=append|upsert [partition=day|none] [prop.K=V ...]
 *       creates the namespace and the table through the REST catalog (Iceberg Java API)
 *   submit table=ns.t kind=append|upsert|late rows=N rate=R checkpoint-ms=5000 keys=1000
 *          base-day-ms=... name=... [restore=file:///savepoint] [uids=false]
 *          [sink=flinksink|icebergsink|dynamic] [maintenance=rewrite,expire] [wopt.K=V ...]
 *          [conf.K=V ...] [client=cli] [parallelism=N]
 *       submits one streaming job to the standalone Flink cluster (REST on flink.port) and prints
 *       its job id; the job keeps running in the cluster after this program exits.
 *       sink: Iceberg's FlinkSink (default), its sink-v2 IcebergSink, or the DynamicIcebergSink
 *       (every record routed to the one table). maintenance (IcebergSink only): the post-commit
 *       table maintenance tasks to add; wopt.K=V: write options for the sink builder's set(K, V),
 *       e.g. wopt.flink-maintenance.rewrite.schedule.commit-count=4. conf.K=V: Flink configuration
 *       for the environment. client=cli: the program is run by Flink's CliFrontend (`flink run`,
 *       labkit.flink_run) and uses the environment the CLI provides, restored with its
 *       -s/--allowNonRestoredState; without it, a remote environment to the cluster.
 * </pre>
 *
 * Every line printed on stdout that starts with "LAB " is JSON for the lab driver.
 */
public final class LabJob {
  static final String[] KINDS = {"view", "click", "purchase", "refund"};
  static final long DAY_MS = 86_400_000L;

  public static void main(String[] argv) throws Exception {
    if (argv.length == 0) throw new IllegalArgumentException("usage: LabJob create|submit key=value ...");
    Map<String, String> a = new HashMap<>();
    for (int i = 1; i < argv.length; i++) {
      int eq = argv[i].indexOf('=');
      a.put(argv[i].substring(0, eq), argv[i].substring(eq + 1));
    }
    switch (argv[0]) {
      case "create" -> create(a);
      case "submit" -> submit(a);
      default -> throw new IllegalArgumentException("unknown command " + argv[0]);
    }
    System.exit(0);
  }

  static Map<String, String> catalogProps() {
    Map<String, String> p = new HashMap<>();
    p.put("type", "rest");
    p.put("uri", env("LAB_CATALOG_URI", "http://127.0.0.1:8181"));
    p.put("credential", env("LAB_CATALOG_CREDENTIAL", "key:secret"));
    p.put("scope", env("LAB_CATALOG_SCOPE", "catalog"));
    p.put("rest.auth.type", "oauth2");
    p.put("oauth2-server-uri", p.get("uri") + "/v1/oauth/tokens");
    p.put("warehouse", env("LAB_WAREHOUSE", "warehouse"));
    p.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    p.put("s3.endpoint", env("LAB_S3_ENDPOINT", "http://127.0.0.1:8333"));
    p.put("s3.path-style-access", "true");
    p.put("s3.access-key-id", env("LAB_S3_KEY", "key"));
    p.put("s3.secret-access-key", env("LAB_S3_SECRET", "secret"));
    p.put("client.region", "us-east-1");
    return p;
  }

  static String env(String k, String d) {
    String v = System.getenv(k);
    return v == null || v.isEmpty() ? d : v;
  }

  static Catalog catalog() {
    return CatalogUtil.buildIcebergCatalog("lab", catalogProps(), new org.apache.hadoop.conf.Configuration());
  }

  static Schema schema(boolean keyed) {
    return new Schema(
        List.of(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(3, "kind", Types.StringType.get()),
            Types.NestedField.optional(4, "amount", Types.DoubleType.get()),
            Types.NestedField.optional(5, "note", Types.StringType.get())),
        keyed ? java.util.Set.of(1) : java.util.Set.of());
  }

  static void create(Map<String, String> a) throws Exception {
    TableIdentifier id = TableIdentifier.parse(a.get("table"));
    boolean keyed = "upsert".equals(a.get("kind"));
    Catalog cat = catalog();
    Namespace ns = id.namespace();
    SupportsNamespaces sn = (SupportsNamespaces) cat;
    if (!sn.namespaceExists(ns)) sn.createNamespace(ns);
    Schema s = schema(keyed);
    String part = a.getOrDefault("partition", keyed ? "none" : "day");
    PartitionSpec spec = "none".equals(part) ? PartitionSpec.unpartitioned() : PartitionSpec.builderFor(s).day("ts").build();
    Map<String, String> props = new HashMap<>();
    props.put("format-version", "2");
    for (Map.Entry<String, String> e : a.entrySet())
      if (e.getKey().startsWith("prop.")) props.put(e.getKey().substring(5), e.getValue());
    Table t = cat.buildTable(id, s).withPartitionSpec(spec).withProperties(props).create();
    System.out.println("LAB {\"event\":\"created\",\"table\":\"" + id + "\",\"location\":\"" + t.location()
        + "\",\"schema_id\":" + t.schema().schemaId() + ",\"format_version\":2,\"io\":\""
        + t.io().getClass().getName() + "\"}");
  }

  static void submit(Map<String, String> a) throws Exception {
    String table = a.get("table");
    String kind = a.getOrDefault("kind", "append");
    long rows = Long.parseLong(a.getOrDefault("rows", String.valueOf(Long.MAX_VALUE)));
    double rate = Double.parseDouble(a.getOrDefault("rate", "200"));
    long cpMs = Long.parseLong(a.getOrDefault("checkpoint-ms", "5000"));
    long keys = Long.parseLong(a.getOrDefault("keys", "1000"));
    long baseDay = Long.parseLong(a.getOrDefault("base-day-ms",
        String.valueOf(Instant.now().truncatedTo(ChronoUnit.DAYS).toEpochMilli())));

    Configuration conf = new Configuration();
    boolean cli = "cli".equals(a.get("client"));
    if (a.containsKey("restore")) {
      if (cli) throw new IllegalArgumentException("client=cli restores with flink run -s, not restore=");
      conf.setString("execution.state-recovery.path", a.get("restore"));
    }
    for (Map.Entry<String, String> e : a.entrySet())
      if (e.getKey().startsWith("conf.")) conf.setString(e.getKey().substring(5), e.getValue());
    conf.setString("pipeline.name", a.getOrDefault("name", "icescope-lab " + kind));
    // client=cli: run by Flink's CliFrontend (`flink run`), the environment is the context one the CLI
    // sets up (its -s/--allowNonRestoredState are in it). Otherwise a remote environment; note that
    // RemoteStreamEnvironment writes SavepointRestoreSettings.none() over the restore settings of the
    // configuration it is given (allowNonRestoredState false), keeping only the path.
    StreamExecutionEnvironment env = cli
        ? StreamExecutionEnvironment.getExecutionEnvironment(conf)
        : StreamExecutionEnvironment.createRemoteEnvironment(
            env("LAB_FLINK_HOST", "127.0.0.1"), Integer.parseInt(env("LAB_FLINK_PORT", "8081")), conf);
    // what the environment will hand the executor (the restore settings of the job it submits)
    String effRestore = env.getConfiguration().get(StateRecoveryOptions.SAVEPOINT_PATH);
    boolean effIgnore = env.getConfiguration().get(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE);
    System.out.println("LAB {\"event\":\"configured\",\"client\":\"" + (cli ? "cli" : "remote-environment")
        + "\",\"restore\":" + (effRestore == null ? "null" : "\"" + effRestore + "\"")
        + ",\"ignore_unclaimed_state\":" + effIgnore + "}");
    // parallelism=N: the writers (and the source) run as N subtasks; the committer is one whatever N.
    env.setParallelism(Integer.parseInt(a.getOrDefault("parallelism", "1")));
    // unchained, so the REST API reports each operator's own record counts
    env.disableOperatorChaining();
    env.enableCheckpointing(cpMs, CheckpointingMode.EXACTLY_ONCE);

    TableIdentifier id = TableIdentifier.parse(table);
    CatalogLoader loader = CatalogLoader.rest("lab", new org.apache.hadoop.conf.Configuration(), catalogProps());
    Table t;
    try (TableLoader tl = TableLoader.fromCatalog(loader, id)) {
      tl.open();
      t = tl.loadTable();
    }
    RowType rowType = FlinkSchemaUtil.convert(t.schema());
    int arity = rowType.getFieldCount();

    GeneratorFunction<Long, RowData> gen = switch (kind) {
      case "upsert" -> i -> row(arity, i % keys, baseDay + i, i);
      case "late" -> i -> {
        // even indexes: today; odd ones: a month ago, one day apart
        long ts = (i % 2 == 0) ? baseDay + 3_600_000L * (1 + i) : baseDay - (30 + i / 2) * DAY_MS + 3_600_000L;
        return row(arity, i, ts, i);
      };
      default -> i -> row(arity, i, baseDay - (i % 3) * DAY_MS + (i / 3) * 7 % DAY_MS, i);
    };
    DataGeneratorSource<RowData> source = new DataGeneratorSource<>(
        gen, rows, RateLimiterStrategy.perSecond(rate), InternalTypeInfo.of(rowType));
    // uids=false: the job as first written without uids (Flink hashes the job graph instead)
    boolean uids = !"false".equals(a.get("uids"));
    DataStream<RowData> stream = env.fromSource(source, WatermarkStrategy.noWatermarks(), "generator").name("generator");
    if (uids) stream = ((org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator<RowData>) stream).uid("lab-generator");

    String sink = a.getOrDefault("sink", "flinksink");
    Map<String, String> wopts = new HashMap<>();
    for (Map.Entry<String, String> e : a.entrySet())
      if (e.getKey().startsWith("wopt.")) wopts.put(e.getKey().substring(5), e.getValue());
    List<String> maint = a.containsKey("maintenance") && !a.get("maintenance").isEmpty()
        ? List.of(a.get("maintenance").split(",")) : List.of();
    if (!maint.isEmpty() && !"icebergsink".equals(sink))
      throw new IllegalArgumentException("maintenance= needs sink=icebergsink");
    switch (sink) {
      case "flinksink" -> {
        FlinkSink.Builder b = FlinkSink.forRowData(stream)
            .tableLoader(TableLoader.fromCatalog(loader, id))
            .writeParallelism(1)
            .setAll(wopts);
        if (uids) b = b.uidPrefix("lab-iceberg-sink");
        if ("upsert".equals(kind)) b = b.upsert(true).equalityFieldColumns(new ArrayList<>(List.of("id")));
        b.append();
      }
      case "icebergsink" -> {
        IcebergSink.Builder b = IcebergSink.forRowData(stream)
            .tableLoader(TableLoader.fromCatalog(loader, id))
            .writeParallelism(1)
            .setAll(wopts)
            .uidSuffix("lab-iceberg-sink");
        if ("upsert".equals(kind)) b = b.upsert(true).equalityFieldColumns(new ArrayList<>(List.of("id")));
        if (maint.contains("rewrite")) b = b.rewriteDataFiles();
        if (maint.contains("expire")) b = b.expireSnapshots();
        b.append();
      }
      case "dynamic" -> {
        if ("upsert".equals(kind)) throw new IllegalArgumentException("the lab's dynamic sink is append-only");
        Schema schema = t.schema();
        PartitionSpec spec = t.spec();
        String target = id.toString(); // TableIdentifier itself is not Serializable
        DynamicRecordGenerator<RowData> route =
            (row, out) -> out.collect(new DynamicRecord(TableIdentifier.parse(target), "main", schema, row, spec));
        DynamicIcebergSink.forInput(stream)
            .generator(route)
            .catalogLoader(loader)
            .writeParallelism(1)
            .setAll(wopts)
            .uidPrefix("lab-dynamic-sink")
            .append();
      }
      default -> throw new IllegalArgumentException("unknown sink " + sink);
    }

    JobClient client = env.executeAsync(a.getOrDefault("name", "icescope-lab " + kind));
    System.out.println("LAB {\"event\":\"submitted\",\"job_id\":\"" + client.getJobID() + "\",\"table\":\"" + table
        + "\",\"kind\":\"" + kind + "\",\"sink\":\"" + sink + "\",\"maintenance\":\"" + String.join(",", maint)
        + "\",\"rows\":" + rows + ",\"rate\":" + rate + ",\"checkpoint_ms\":" + cpMs
        + ",\"client\":\"" + (cli ? "cli" : "remote-environment") + "\""
        + ",\"restore\":" + (effRestore == null ? "null" : "\"" + effRestore + "\"")
        + ",\"ignore_unclaimed_state\":" + effIgnore + "}");
  }

  /** One generated row: only the first `arity` fields of [id, ts, kind, amount, note] exist. */
  static RowData row(int arity, long id, long tsMs, long i) {
    GenericRowData r = new GenericRowData(arity);
    Object[] v = {id, TimestampData.fromEpochMillis(tsMs), StringData.fromString(KINDS[(int) (i % 4)]),
        (double) (i % 1000) / 10.0, StringData.fromString("n" + (i % 7))};
    for (int k = 0; k < arity && k < v.length; k++) r.setField(k, v[k]);
    return r;
  }
}
