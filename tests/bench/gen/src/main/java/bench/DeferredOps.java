package bench;

import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * The table's commit pointer held in memory between metadata.json writes: each commit is a normal
 * single-operation commit (table.newAppend().commit(), …; its own snapshot, its own snapshot-log
 * entry, manifests and manifest list written as usual), but the new metadata.json is written by
 * the wrapped HadoopTableOperations only every {@link #writeEvery} commits.
 *
 * <p>Why not Transactions: a transaction's intermediate snapshots are dropped from the snapshot log
 * (TableMetadata.Builder#updateSnapshotLog), so the history a reader sees would not be a streaming
 * table's. Why not a metadata.json per commit: at 17,280 snapshots the file is ~15 MB, and writing
 * (and re-reading) one per commit is ~140 GB. The final table is the same either way: the last
 * commits are written one metadata.json each (writeEvery = 1), so the metadata log's 100 entries
 * are consecutive commits, as in a real table; only the version numbers in the metadata file
 * names are lower than the commit count.
 */
final class DeferredOps implements TableOperations {
  private final TableOperations disk;
  private TableMetadata pending; // committed in memory, not yet written; null when disk is current
  private int pendingCommits;
  int writeEvery = 1;
  int filesWritten;

  DeferredOps(TableOperations disk) {
    this.disk = disk;
  }

  @Override
  public TableMetadata current() {
    return pending != null ? pending : disk.current();
  }

  @Override
  public TableMetadata refresh() {
    return pending != null ? pending : disk.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    if (base != current()) {
      throw new CommitFailedException("Cannot commit changes based on stale table metadata");
    }
    if (base == metadata) {
      return;
    }
    // As if read back from a metadata file: no pending changes carried into the next commit
    // (carried changes are what makes a transaction's snapshots "intermediate").
    pending = TableMetadata.buildFrom(metadata).discardChanges().build();
    pendingCommits++;
    if (pendingCommits >= writeEvery) {
      flush();
    }
  }

  /** Write the pending metadata as the next metadata.json (HadoopTableOperations.commit). */
  void flush() {
    if (pending == null) {
      return;
    }
    disk.commit(disk.current(), pending);
    filesWritten++;
    pending = null;
    pendingCommits = 0;
    disk.refresh();
  }

  @Override
  public FileIO io() {
    return disk.io();
  }

  @Override
  public EncryptionManager encryption() {
    return disk.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return disk.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    TableMetadata m = current();
    return LocationProviders.locationsFor(m.location(), m.properties());
  }

  @Override
  public long newSnapshotId() {
    return disk.newSnapshotId();
  }
}
