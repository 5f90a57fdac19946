package lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * What Flink itself reads from a savepoint or retained checkpoint: its own metadata loader for the
 * checkpoint id, the operators (id, name, uid, parallelism, max parallelism, operator-state names),
 * and the State Processor API for FlinkSink's committer job id (list state iceberg-flink-job-id of
 * the operator holding it, by its id: a job without uids has no uid to name it by). One "LAB {json}" line per path argument.
 */
public final class SavepointFacts {
  public static void main(String[] args) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(1);
    for (String path : args) {
      CheckpointMetadata m = SavepointLoader.loadSavepointMetadata(path);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("path", path);
      out.put("checkpoint_id", m.getCheckpointId());
      List<Map<String, Object>> ops = new ArrayList<>();
      String committerHash = null;
      for (OperatorState op : m.getOperatorStates()) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("operator_id", op.getOperatorID().toHexString());
        o.put("name", op.getOperatorName().orElse(null));
        o.put("uid", op.getOperatorUid().orElse(null));
        o.put("parallelism", op.getParallelism());
        o.put("max_parallelism", op.getMaxParallelism());
        TreeSet<String> names = new TreeSet<>();
        for (OperatorSubtaskState s : op.getStates()) {
          for (OperatorStateHandle h : s.getManagedOperatorState()) {
            names.addAll(h.getStateNameToPartitionOffsets().keySet());
          }
          for (OperatorStateHandle h : s.getRawOperatorState()) {
            names.addAll(h.getStateNameToPartitionOffsets().keySet());
          }
        }
        o.put("state_names", new ArrayList<>(names));
        if (names.contains("iceberg-flink-job-id")) {
          committerHash = op.getOperatorID().toHexString();
        }
        ops.add(o);
      }
      out.put("operators", ops);
      if (committerHash != null) {
        SavepointReader reader = SavepointReader.read(env, path, new HashMapStateBackend());
        List<String> ids = new ArrayList<>();
        try (CloseableIterator<String> it =
            reader
                .readListState(OperatorIdentifier.forUidHash(committerHash), "iceberg-flink-job-id", Types.STRING)
                .executeAndCollect()) {
          it.forEachRemaining(ids::add);
        }
        out.put("committer_job_ids", ids);
      }
      System.out.println("LAB " + Json.of(out));
    }
  }

  /** Just enough JSON for maps, lists, strings, numbers and null. */
  static final class Json {
    static String of(Object v) {
      if (v == null) {
        return "null";
      } else if (v instanceof String) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : ((String) v).toCharArray()) {
          if (c == '"' || c == '\\') {
            b.append('\\').append(c);
          } else if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
        return b.append('"').toString();
      } else if (v instanceof Map) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          parts.add(of(String.valueOf(e.getKey())) + ":" + of(e.getValue()));
        }
        return "{" + String.join(",", parts) + "}";
      } else if (v instanceof List) {
        List<String> parts = new ArrayList<>();
        for (Object o : (List<?>) v) {
          parts.add(of(o));
        }
        return "[" + String.join(",", parts) + "]";
      }
      return String.valueOf(v);
    }
  }
}
