package bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Writes the benchmark workloads: Iceberg tables shaped like what Flink's IcebergFilesCommitter
 * leaves behind, written by the real Iceberg Java API (HadoopTables on the local filesystem).
 *
 * <pre>
 *   java -cp target/classes:target/lib/* bench.Gen --out DIR [--small] [workload …]
 * </pre>
 *
 * Workloads: w1a (merge append), w1b (fast append), w1b-1000, w1b-3000 (its first commits), w2
 * (upsert: row deltas with data + position-delete + equality-delete files), w3 (w1a after
 * expire_snapshots + rewrite_manifests). See the Benchmark section of the repository README.
 *
 * <p>Feasibility: every commit is a normal single-operation commit (its own snapshot, snapshot-log
 * entry, manifests and manifest list), but in the bulk of the commits metadata.json is written only
 * every BATCH commits (see {@link DeferredOps}); the last TAIL commits write one each, so the
 * metadata log (the default 100 previous versions; older files deleted after commit) is a streaming
 * table's. Nothing the Java API wrote is edited afterwards.
 */
public final class Gen {
  static final long DAY_MS = 86_400_000L;
  /** 2025-03-01T00:00:00Z: the simulated day the checkpoints cover (rows' event time). */
  static final long T0_MS = Instant.parse("2025-03-01T00:00:00Z").toEpochMilli();
  /** Flink checkpoint interval. */
  static final long STEP_MS = 5_000L;

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(3, "payload", Types.StringType.get()));
  static final Schema UPSERT_SCHEMA = new Schema(SCHEMA.columns(), Set.of(1));

  /** Rows per data file in w1*: the current day, then late rows for yesterday and the day before. */
  static final int[] ROWS_BY_LATENESS = {50, 3, 1};

  static int batch = 1000; // commits per metadata.json in the bulk
  /**
   * The same for fast append: each snapshot keeps its manifest list (k entries at commit k) cached
   * once read, until metadata.json is written and read back, so 1,000 of them at 17k entries each
   * fill an 8 GB heap.
   */
  static int fastBatch = 100;
  static int tail = 150; // last commits committed one by one (≥ previous-versions-max + 1)
  /**
   * Metadata files kept besides the current one (Iceberg's write.metadata.previous-versions-max,
   * default 100): `--keep-metadata 720` lets a watch bench land an hour of 5 s commits.
   */
  static int keepMetadata = 100;
  /** With `--s3-bucket B`: tables located at s3://B/<name>, kept on disk at <out>/<name>. */
  static String s3Bucket;
  static Path outRoot;

  enum Kind {
    MERGE,
    FAST,
    UPSERT
  }

  record Workload(String name, Kind kind, int commits, boolean maintenance, String family) {}

  static List<Workload> workloads(boolean small) {
    int day = small ? 300 : 17_280;
    return List.of(
        new Workload("w1b-1000", Kind.FAST, small ? 17 : 1000, false, "w1b"),
        new Workload("w1b-3000", Kind.FAST, small ? 52 : 3000, false, "w1b"),
        new Workload("w2", Kind.UPSERT, small ? 72 : 720, false, "w2"),
        new Workload("w1a", Kind.MERGE, day, false, "w1a"),
        new Workload("w3", Kind.MERGE, day, true, "w3"),
        new Workload("w1b", Kind.FAST, day, false, "w1b"));
  }

  public static void main(String[] args) throws Exception {
    Path out = Paths.get("tests/bench/work");
    boolean small = false;
    List<String> names = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Paths.get(args[++i]);
        case "--small" -> small = true;
        case "--batch" -> batch = Integer.parseInt(args[++i]);
        case "--fast-batch" -> fastBatch = Integer.parseInt(args[++i]);
        case "--tail" -> tail = Integer.parseInt(args[++i]);
        case "--keep-metadata" -> keepMetadata = Integer.parseInt(args[++i]);
        case "--s3-bucket" -> s3Bucket = args[++i];
        default -> names.add(args[i]);
      }
    }
    out = out.toAbsolutePath().normalize();
    outRoot = out;
    List<Workload> all = workloads(small);
    List<Workload> chosen = new ArrayList<>();
    for (Workload w : all) {
      if (names.isEmpty() || names.contains(w.name())) {
        chosen.add(w);
      }
    }
    for (String n : names) {
      if (all.stream().noneMatch(w -> w.name().equals(n))) {
        throw new IllegalArgumentException(
            "unknown workload " + n + " (known: w1a w1b w1b-1000 w1b-3000 w2 w3)");
      }
    }
    Files.createDirectories(out);
    long t0 = System.nanoTime();
    for (Workload w : chosen) {
      new Gen(out, w, small).run();
    }
    System.out.printf(Locale.ROOT, "all done in %.1f s%n", (System.nanoTime() - t0) / 1e9);
  }

  // ---------------------------------------------------------------------------------------------

  final Path dir;
  final Workload w;
  final boolean small;
  final Random rnd;
  final String jobId;
  final String operatorId;
  Table table;
  DeferredOps ops;
  PartitionSpec spec;
  OutputFileFactory files;
  GenericFileWriterFactory writers;
  long nextId = 1;
  long writeNanos;
  long dataFiles, posDeleteFiles, eqDeleteFiles, records, posDeletes, eqDeletes, parquetBytes;

  Gen(Path out, Workload w, boolean small) {
    this.dir = out.resolve(w.name());
    this.w = w;
    this.small = small;
    // One job per family: w1b-1000 and w1b-3000 are the first commits of the same w1b job.
    Random ids = new Random(w.family().hashCode());
    this.jobId = hex32(ids);
    this.operatorId = hex32(ids);
    this.rnd = new Random(42L + w.family().hashCode());
  }

  static String hex32(Random r) {
    return String.format(Locale.ROOT, "%016x%016x", r.nextLong(), r.nextLong());
  }

  static Configuration hadoopConf() {
    Configuration conf = new Configuration();
    // No .crc side files next to every metadata and data file, no chmod process per file.
    conf.set("fs.file.impl", LocalFs.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    conf.set("fs.s3.impl", MappedS3Fs.class.getName());
    conf.setBoolean("fs.s3.impl.disable.cache", true);
    if (outRoot != null) {
      conf.set(MappedS3Fs.ROOT, outRoot.toString());
    }
    return conf;
  }

  void run() throws IOException {
    long start = System.nanoTime();
    deleteRecursively(dir);
    Files.createDirectories(dir.getParent());
    Map<String, String> props = new LinkedHashMap<>();
    props.put(TableProperties.FORMAT_VERSION, "2");
    props.put(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
    props.put(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(keepMetadata));
    props.put(TableProperties.MANIFEST_MERGE_ENABLED, "true");
    props.put(TableProperties.MANIFEST_MIN_MERGE_COUNT, "100");
    if (w.kind() == Kind.UPSERT) {
      props.put(TableProperties.UPSERT_ENABLED, "true");
    }
    Schema schema = w.kind() == Kind.UPSERT ? UPSERT_SCHEMA : SCHEMA;
    PartitionSpec ps = PartitionSpec.builderFor(schema).day("ts").build();
    HadoopTables tables = new HadoopTables(hadoopConf());
    String location = s3Bucket != null ? "s3://" + s3Bucket + "/" + w.name() : "file://" + dir;
    Table created = tables.create(schema, ps, SortOrder.unsorted(), props, location);
    ops = new DeferredOps(((HasTableOperations) created).operations());
    table = new BaseTable(ops, created.name());
    spec = table.spec();
    // Flink's RowDataTaskWriterFactory: one OutputFileFactory per writer subtask (here subtask 0,
    // attempt 0), file names <partitionId>-<taskId>-<operationId>-<count>.parquet.
    files =
        OutputFileFactory.builderFor(table, 0, 0)
            .format(FileFormat.PARQUET)
            .operationId(new UUID(rnd.nextLong(), rnd.nextLong()).toString())
            .build();
    GenericFileWriterFactory.Builder wb =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET);
    if (w.kind() == Kind.UPSERT) {
      wb.equalityFieldIds(new int[] {1}).equalityDeleteRowSchema(schema.select("id"));
    }
    writers = wb.build();

    System.out.printf(
        Locale.ROOT,
        "%s: %d commits (%s), job %s -> %s%n",
        w.name(),
        w.commits(),
        w.kind(),
        jobId,
        dir);
    int n = w.commits();
    // The bulk of the commits write a metadata.json only every BATCH commits (DeferredOps); the
    // last TAIL commits, and every w2 checkpoint, write one each, as a streaming table does.
    int bulk = w.kind() == Kind.UPSERT ? 0 : Math.max(0, n - tail);
    long lastReport = System.nanoTime();
    int lastK = 0;
    int every = w.kind() == Kind.FAST ? fastBatch : batch;
    for (int k = 0; k < n; ) {
      ops.writeEvery = k < bulk ? every : 1;
      commit(k);
      k++;
      if (k == bulk) {
        ops.flush();
      }
      if (k == n || k - lastK >= (k <= bulk ? 1000 : 500) || System.nanoTime() - lastReport > 30e9) {
        double el = (System.nanoTime() - start) / 1e9;
        double rate = (k - lastK) / ((System.nanoTime() - lastReport) / 1e9);
        System.out.printf(
            Locale.ROOT,
            "  %s %d/%d commits  %.1f s  (%.0f commits/s; Parquet writing %.1f s so far; %d metadata.json written)%n",
            w.name(),
            k,
            n,
            el,
            rate,
            writeNanos / 1e9,
            ops.filesWritten);
        lastReport = System.nanoTime();
        lastK = k;
      }
    }
    ops.flush();
    table.refresh();
    double commitSeconds = (System.nanoTime() - start) / 1e9;
    if (w.maintenance()) {
      long t = System.nanoTime();
      // What a user's hourly maintenance leaves: keep the last 100 snapshots, then compact the
      // manifests by partition (Spark's rewrite_manifests clusters by partition as well).
      table.expireSnapshots().expireOlderThan(System.currentTimeMillis()).retainLast(100).commit();
      System.out.printf(
          Locale.ROOT, "  %s expire_snapshots %.1f s%n", w.name(), (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      table.rewriteManifests().clusterBy(f -> f.partition().get(0, Integer.class)).commit();
      System.out.printf(
          Locale.ROOT, "  %s rewrite_manifests %.1f s%n", w.name(), (System.nanoTime() - t) / 1e9);
      table.refresh();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    writeFacts(commitSeconds, seconds);
    System.out.printf(Locale.ROOT, "%s: done in %.1f s%n", w.name(), seconds);
  }

  /** Commit checkpoint k+1 the way IcebergFilesCommitter.commitOperation does. */
  void commit(int k) {
    long checkpointId = k + 1;
    SnapshotUpdate<?> op;
    switch (w.kind()) {
      case MERGE, FAST -> {
        AppendFiles append = w.kind() == Kind.MERGE ? table.newAppend() : table.newFastAppend();
        long t = T0_MS + STEP_MS * k;
        long today = Math.floorDiv(t, DAY_MS);
        for (int late = 0; late < ROWS_BY_LATENESS.length; late++) {
          int day = (int) (today - late);
          List<Record> rows = new ArrayList<>();
          for (int i = 0; i < ROWS_BY_LATENESS[late]; i++) {
            long ts = t - late * DAY_MS + rnd.nextInt((int) STEP_MS);
            ts = Math.min(Math.max(ts, day * DAY_MS), day * DAY_MS + DAY_MS - 1);
            rows.add(row(nextId++, ts));
          }
          append.appendFile(writeData(day, rows));
        }
        op = append;
      }
      case UPSERT -> {
        long t = T0_MS + STEP_MS * k;
        int day = (int) Math.floorDiv(t, DAY_MS);
        // 8 distinct keys, the first two written again later in the same checkpoint: Flink's
        // upsert writer deletes every key it writes — by position when the key's earlier row is in
        // the file it is writing (the repeats), by equality otherwise.
        long keySpace = 2000;
        List<Long> keys = new ArrayList<>();
        while (keys.size() < 8) {
          long key = 1 + (long) rnd.nextInt((int) keySpace);
          if (!keys.contains(key)) {
            keys.add(key);
          }
        }
        List<Record> rows = new ArrayList<>();
        for (long key : keys) {
          rows.add(row(key, t + rnd.nextInt((int) STEP_MS)));
        }
        rows.add(row(keys.get(0), t + rnd.nextInt((int) STEP_MS)));
        rows.add(row(keys.get(1), t + rnd.nextInt((int) STEP_MS)));
        DataFile data = writeData(day, rows);
        DeleteFile eq = writeEqDeletes(day, keys);
        DeleteFile pos = writePosDeletes(day, data.location(), new long[] {0, 1});
        op = table.newRowDelta().addRows(data).addDeletes(eq).addDeletes(pos);
      }
      default -> throw new IllegalStateException();
    }
    op.set("flink.max-committed-checkpoint-id", Long.toString(checkpointId));
    op.set("flink.job-id", jobId);
    op.set("flink.operator-id", operatorId);
    op.commit();
  }

  static final char[] ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

  Record row(long id, long tsMillis) {
    Record r = GenericRecord.create(table.schema());
    r.setField("id", id);
    r.setField(
        "ts",
        LocalDateTime.ofEpochSecond(
            Math.floorDiv(tsMillis, 1000L),
            (int) Math.floorMod(tsMillis, 1000L) * 1_000_000,
            ZoneOffset.UTC));
    char[] p = new char[24];
    for (int i = 0; i < p.length; i++) {
      p[i] = ALNUM[rnd.nextInt(ALNUM.length)];
    }
    r.setField("payload", "evt-" + id + "-" + new String(p));
    return r;
  }

  GenericRecord partition(int day) {
    GenericRecord p = GenericRecord.create(spec.partitionType());
    p.set(0, day);
    return p;
  }

  DataFile writeData(int day, List<Record> rows) {
    long t0 = System.nanoTime();
    try {
      return writeData0(day, rows);
    } finally {
      writeNanos += System.nanoTime() - t0;
    }
  }

  DataFile writeData0(int day, List<Record> rows) {
    GenericRecord part = partition(day);
    EncryptedOutputFile out = files.newOutputFile(spec, part);
    DataWriter<Record> writer = writers.newDataWriter(out, spec, part);
    try (writer) {
      for (Record r : rows) {
        writer.write(r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile f = writer.toDataFile();
    dataFiles++;
    records += f.recordCount();
    parquetBytes += f.fileSizeInBytes();
    return f;
  }

  DeleteFile writeEqDeletes(int day, List<Long> keys) {
    long t0 = System.nanoTime();
    try {
      return writeEqDeletes0(day, keys);
    } finally {
      writeNanos += System.nanoTime() - t0;
    }
  }

  DeleteFile writeEqDeletes0(int day, List<Long> keys) {
    GenericRecord part = partition(day);
    EncryptedOutputFile out = files.newOutputFile(spec, part);
    EqualityDeleteWriter<Record> writer = writers.newEqualityDeleteWriter(out, spec, part);
    Schema keySchema = table.schema().select("id");
    try (writer) {
      for (long key : keys) {
        Record r = GenericRecord.create(keySchema);
        r.setField("id", key);
        writer.write(r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteFile f = writer.toDeleteFile();
    eqDeleteFiles++;
    eqDeletes += f.recordCount();
    parquetBytes += f.fileSizeInBytes();
    return f;
  }

  DeleteFile writePosDeletes(int day, String dataPath, long[] positions) {
    long t0 = System.nanoTime();
    try {
      return writePosDeletes0(day, dataPath, positions);
    } finally {
      writeNanos += System.nanoTime() - t0;
    }
  }

  DeleteFile writePosDeletes0(int day, String dataPath, long[] positions) {
    GenericRecord part = partition(day);
    EncryptedOutputFile out = files.newOutputFile(spec, part);
    PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(out, spec, part);
    try (writer) {
      PositionDelete<Record> pd = PositionDelete.create();
      for (long pos : positions) {
        writer.write(pd.set(dataPath, pos));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteFile f = writer.toDeleteFile();
    posDeleteFiles++;
    posDeletes += f.recordCount();
    parquetBytes += f.fileSizeInBytes();
    return f;
  }

  // ---------------------------------------------------------------------------------------------

  void writeFacts(double commitSeconds, double seconds) throws IOException {
    TableMetadata meta = ((HasTableOperations) table).operations().current();
    Snapshot cur = meta.currentSnapshot();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("workload", w.name());
    f.put("small", small);
    f.put("kind", w.kind().toString().toLowerCase(Locale.ROOT));
    f.put("operation", switch (w.kind()) {
      case MERGE -> "newAppend (merge append)";
      case FAST -> "newFastAppend";
      case UPSERT -> "newRowDelta";
    });
    f.put("maintenance", w.maintenance() ? "expireSnapshots(retainLast 100) + rewriteManifests" : null);
    f.put("commits", w.commits());
    f.put("checkpoint_ids", List.of(1, w.commits()));
    int every = w.kind() == Kind.UPSERT ? 1 : w.kind() == Kind.FAST ? fastBatch : batch;
    f.put("commits_per_metadata_json_in_bulk", every);
    f.put("commits_with_own_metadata_json_at_end", w.kind() == Kind.UPSERT ? w.commits() : Math.min(tail, w.commits()));
    f.put("metadata_json_written", ops.filesWritten + 1);
    f.put("job_id", jobId);
    f.put("operator_id", operatorId);
    f.put("table_location", meta.location());
    f.put("format_version", meta.formatVersion());
    f.put("data_files", dataFiles);
    f.put("delete_files", posDeleteFiles + eqDeleteFiles);
    f.put("position_delete_files", posDeleteFiles);
    f.put("equality_delete_files", eqDeleteFiles);
    f.put("records", records);
    f.put("position_deletes", posDeletes);
    f.put("equality_deletes", eqDeletes);
    f.put("parquet_bytes", parquetBytes);
    f.put("snapshots", meta.snapshots().size());
    f.put("snapshot_log_entries", meta.snapshotLog().size());
    f.put("metadata_log_entries", meta.previousFiles().size());
    f.put("current_snapshot_id", cur.snapshotId());
    f.put("current_snapshot_summary", cur.summary());
    String metaLoc = meta.metadataFileLocation();
    f.put("metadata_file", metaLoc.substring(metaLoc.lastIndexOf('/') + 1));
    f.put("metadata_file_bytes", Files.size(localPath(metaLoc)));

    // What a metadata-first reader needs: metadata.json, the current manifest list, its manifests.
    List<ManifestFile> manifests = cur.allManifests(table.io());
    long manifestBytes = manifests.stream().mapToLong(ManifestFile::length).sum();
    long listBytes = Files.size(localPath(cur.manifestListLocation()));
    Map<String, Object> current = new LinkedHashMap<>();
    current.put("manifest_list", cur.manifestListLocation());
    current.put("manifest_list_bytes", listBytes);
    current.put("manifests", manifests.size());
    current.put("data_manifests", manifests.stream().filter(m -> m.content().id() == 0).count());
    current.put("delete_manifests", manifests.stream().filter(m -> m.content().id() == 1).count());
    current.put("manifest_bytes", manifestBytes);
    current.put(
        "bytes_total", Files.size(localPath(metaLoc)) + listBytes + manifestBytes);
    f.put("current_snapshot", current);

    // Everything in metadata/ (what a full-history reader may open).
    long[] lists = new long[2], mans = new long[2], jsons = new long[2], other = new long[2];
    try (Stream<Path> s = Files.list(dir.resolve("metadata"))) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        long size = Files.size(p);
        long[] bucket =
            name.endsWith(".metadata.json")
                ? jsons
                : name.endsWith(".avro") ? (name.startsWith("snap-") ? lists : mans) : other;
        bucket[0]++;
        bucket[1] += size;
      }
    }
    Map<String, Object> disk = new LinkedHashMap<>();
    disk.put("metadata_json_files", jsons[0]);
    disk.put("metadata_json_bytes", jsons[1]);
    disk.put("manifest_lists", lists[0]);
    disk.put("manifest_list_bytes", lists[1]);
    disk.put("manifests", mans[0]);
    disk.put("manifest_bytes", mans[1]);
    disk.put("other_files", other[0]);
    f.put("metadata_dir", disk);
    f.put("generator_seconds", Math.round(seconds * 10) / 10.0);
    f.put("commit_seconds", Math.round(commitSeconds * 10) / 10.0);
    f.put("iceberg_version", org.apache.iceberg.IcebergBuild.version());
    f.put("generated_at", Instant.now().toString());
    f.put(
        "note",
        "snapshot timestamps are the generator's wall clock, not 5 s apart; rows' event time "
            + "covers 2025-03-01 (and late rows for the two days before) at 5 s checkpoints; "
            + "metadata.json was written every " + every
            + " commits and then for each of the last " + Math.min(tail, w.commits())
            + " commits, so metadata file versions are lower than the commit count");

    ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    om.writeValue(dir.resolve("facts.json").toFile(), f);
    System.out.printf(
        Locale.ROOT,
        "  %s: %d snapshots, metadata %s %,d B, current list %,d B + %d manifests %,d B; "
            + "metadata/ lists %,d B, manifests %,d B%n",
        w.name(),
        meta.snapshots().size(),
        f.get("metadata_file"),
        f.get("metadata_file_bytes"),
        listBytes,
        manifests.size(),
        manifestBytes,
        lists[1],
        mans[1]);
  }

  static Path localPath(String location) {
    if (s3Bucket != null && location.startsWith("s3://" + s3Bucket + "/")) {
      return outRoot.resolve(location.substring(("s3://" + s3Bucket + "/").length()));
    }
    String p = location.replaceFirst("^file:(//)?", "");
    return Paths.get(p);
  }

  static void deleteRecursively(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(q);
      }
    }
  }
}
