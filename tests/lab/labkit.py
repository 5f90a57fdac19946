"""The lab's plumbing: the servers it starts (SeaweedFS, a standalone Flink JobManager and
TaskManager, Spark in this process), the Flink REST calls it makes, the S3 export.

Everything binds to 127.0.0.1. Every process started here is recorded with its pid and stopped by
`stop_all()` (run at exit and on SIGINT/SIGTERM), by pid, never by name.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

LAB = Path(__file__).resolve().parent
REPO = LAB.parents[1]
WORK = LAB / "work"
FIXTURES = REPO / "tests" / "fixtures"
JAVA = LAB / "java"
CLASSPATH = f"{JAVA / 'target' / 'icescope-lab.jar'}:{JAVA / 'target' / 'lib'}/*"
SPARK_JARS = sorted(str(p) for p in (JAVA / "target" / "spark-jars").glob("*.jar"))
WEED = LAB / ".venv" / "bin" / "weed"

HOST = "127.0.0.1"
S3_PORT, CATALOG_PORT, FLINK_PORT = 8333, 8181, 8081
S3_KEY, S3_SECRET = "key", "secret"
BUCKET = "warehouse"
NAMESPACE = "icescope"

VERSIONS = {
    "flink": "2.1.1",
    "iceberg": "1.11.0",
    "iceberg_flink_runtime": "org.apache.iceberg:iceberg-flink-runtime-2.1:1.11.0",
    "spark": None,  # filled in when Spark starts
    "iceberg_spark_runtime": "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.11.0",
    "seaweedfs": None,  # filled in when SeaweedFS starts
    "java": None,
}
CATALOG = {
    "kind": "seaweedfs-iceberg-rest",
    "uri": f"http://{HOST}:{CATALOG_PORT}",
    "warehouse": BUCKET,
    "auth": "oauth2 client_credentials (key:secret, scope catalog)",
    "s3_endpoint": f"http://{HOST}:{S3_PORT}",
}

JAVA_OPENS = (
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED "
    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED "
    "--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED "
    "--add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED "
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED "
    "--add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED "
    "--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"
).split()


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def now_ms() -> int:
    return int(time.time() * 1000)


# ---------------------------------------------------------------- processes

_procs: dict[str, subprocess.Popen] = {}


def start(name: str, cmd: list[str], logfile: Path, env: dict | None = None, cwd: Path | None = None):
    logfile.parent.mkdir(parents=True, exist_ok=True)
    fh = open(logfile, "ab")
    p = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
                         cwd=cwd, start_new_session=True)
    _procs[name] = p
    log(f"started {name} pid {p.pid}")
    return p


def kill(name: str, sig=signal.SIGTERM, wait=20.0):
    p = _procs.pop(name, None)
    if p is None or p.poll() is not None:
        return
    try:
        os.kill(p.pid, sig)
        p.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    except ProcessLookupError:
        pass
    log(f"stopped {name} pid {p.pid} with {signal.Signals(sig).name}")


_spark = None


def stop_all():
    global _spark
    if _spark is not None:
        try:
            _spark.stop()
        except Exception:
            pass
        _spark = None
    for name in list(_procs)[::-1]:
        kill(name)


atexit.register(stop_all)


def _on_signal(sig, _frame):
    stop_all()
    sys.exit(128 + sig)


signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)


def port_free(port: int) -> bool:
    import socket
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT from an earlier run is fine
    try:
        s.bind((HOST, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def wait_for(what: str, fn, timeout=120.0, every=0.5):
    t0 = time.time()
    last = None
    while time.time() - t0 < timeout:
        try:
            v = fn()
            if v:
                return v
        except Exception as e:  # noqa: BLE001
            last = e
        time.sleep(every)
    raise TimeoutError(f"timed out waiting for {what}: {last}")


# ---------------------------------------------------------------- SeaweedFS

def start_seaweedfs():
    for port in (S3_PORT, CATALOG_PORT, 9333, 8888, 9340):
        if not port_free(port):
            raise SystemExit(f"port {port} on {HOST} is taken: stop whatever holds it first")
    d = WORK / "seaweedfs"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    VERSIONS["seaweedfs"] = subprocess.run([str(WEED), "version"], capture_output=True, text=True).stdout.strip()
    # S3 credentials come from the environment (no -s3.config); the catalog takes the same pair as
    # OAuth2 client credentials.
    start("seaweedfs", [str(WEED), "mini", f"-dir={d}", f"-ip={HOST}", f"-ip.bind={HOST}",
                        "-master.telemetry=false", f"-tableBucket={BUCKET}", "-webdav=false", "-admin.ui=false"],
          WORK / "logs" / "seaweedfs.log", env={"AWS_ACCESS_KEY_ID": S3_KEY, "AWS_SECRET_ACCESS_KEY": S3_SECRET},
          cwd=d)
    wait_for("the Iceberg REST catalog", lambda: catalog_token() is not None, timeout=90)
    wait_for("the S3 bucket", lambda: s3().head_bucket(Bucket=BUCKET) is not None, timeout=60)
    log("SeaweedFS up:", VERSIONS["seaweedfs"])


def catalog_token():
    data = f"grant_type=client_credentials&client_id={S3_KEY}&client_secret={S3_SECRET}&scope=catalog".encode()
    with urllib.request.urlopen(f"http://{HOST}:{CATALOG_PORT}/v1/oauth/tokens", data=data, timeout=5) as r:
        return json.load(r)["access_token"]


def catalog_get(path: str):
    req = urllib.request.Request(f"http://{HOST}:{CATALOG_PORT}{path}",
                                 headers={"Authorization": f"Bearer {catalog_token()}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def s3():
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=f"http://{HOST}:{S3_PORT}", aws_access_key_id=S3_KEY,
                        aws_secret_access_key=S3_SECRET, region_name="us-east-1",
                        config=Config(s3={"addressing_style": "path"}))


def list_objects(prefix: str) -> list[dict]:
    out, token = [], None
    c = s3()
    while True:
        kw = {"Bucket": BUCKET, "Prefix": prefix}
        if token:
            kw["ContinuationToken"] = token
        r = c.list_objects_v2(**kw)
        out += [{"key": o["Key"], "size": o["Size"]} for o in r.get("Contents", [])]
        if not r.get("IsTruncated"):
            return out
        token = r["NextContinuationToken"]


def store_census(location: str) -> dict:
    """What is on the store under a table location right now, by kind of file."""
    prefix = location.split(f"s3://{BUCKET}/", 1)[1].rstrip("/") + "/"
    objs = list_objects(prefix)
    c = {"metadata_json": 0, "metadata_json_latest_bytes": 0, "manifest_lists": 0, "manifests": 0,
         "manifest_bytes": 0, "data_or_delete_files": 0, "objects": len(objs), "bytes": sum(o["size"] for o in objs)}
    latest = (-1, 0)
    for o in objs:
        name = o["key"].rsplit("/", 1)[-1]
        if name.endswith(".metadata.json"):
            c["metadata_json"] += 1
            try:
                v = int(name.split("-")[0].lstrip("v").split(".")[0])
            except ValueError:
                v = 0
            latest = max(latest, (v, o["size"]))
        elif name.startswith("snap-") and name.endswith(".avro"):
            c["manifest_lists"] += 1
        elif name.endswith(".avro"):
            c["manifests"] += 1
            c["manifest_bytes"] += o["size"]
        elif "/data/" in "/" + o["key"]:
            c["data_or_delete_files"] += 1
    c["metadata_json_latest_bytes"] = latest[1]
    return c


def export_table(location: str, dest: Path) -> dict:
    """Download every object below the table location, keeping the layout below it."""
    prefix = location.split(f"s3://{BUCKET}/", 1)[1].rstrip("/") + "/"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    c = s3()
    objs = list_objects(prefix)
    for o in objs:
        rel = o["key"][len(prefix):]
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        c.download_file(BUCKET, o["key"], str(target))
    return {"objects": len(objs), "bytes": sum(o["size"] for o in objs), "prefix": f"s3://{BUCKET}/{prefix}"}


# ---------------------------------------------------------------- Flink

FLINK = WORK / "flink"


def flink_conf() -> Path:
    conf = FLINK / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    (FLINK / "checkpoints").mkdir(parents=True, exist_ok=True)
    (FLINK / "savepoints").mkdir(parents=True, exist_ok=True)
    lines = {
        "jobmanager.rpc.address": HOST,
        "jobmanager.rpc.port": 6123,
        "jobmanager.bind-host": HOST,
        "taskmanager.bind-host": HOST,
        "taskmanager.host": HOST,
        "rest.address": HOST,
        "rest.bind-address": HOST,
        "rest.port": FLINK_PORT,
        "blob.server.port": 6124,
        "jobmanager.memory.process.size": "1024m",
        "taskmanager.memory.process.size": "1536m",
        "taskmanager.numberOfTaskSlots": 4,
        "parallelism.default": 1,
        "state.backend.type": "hashmap",
        "execution.checkpointing.dir": f"file://{FLINK / 'checkpoints'}",
        "execution.checkpointing.savepoint-dir": f"file://{FLINK / 'savepoints'}",
        "execution.checkpointing.tolerable-failed-checkpoints": 1000,
        "restart-strategy.type": "fixed-delay",
        "restart-strategy.fixed-delay.attempts": 50,
        "restart-strategy.fixed-delay.delay": "10 s",
        "heartbeat.interval": 2000,
        "heartbeat.timeout": 8000,
        "metrics.fetcher.update-interval": 1000,
        "rest.cache.checkpoint-statistics.timeout": "100 ms",
        "web.checkpoints.history": 500,
        "jobstore.expiration-time": 86400,
        "env.java.opts.all": " ".join(JAVA_OPENS),
    }
    (conf / "config.yaml").write_text("".join(f"{k}: {json.dumps(v) if isinstance(v, str) else v}\n"
                                              for k, v in lines.items()))
    shutil.copy(JAVA / "src" / "main" / "resources" / "log4j2-lab.properties", conf / "log4j.properties")
    return conf


def _resource_params(which: str, conf: Path) -> tuple[list[str], list[str]]:
    """The JVM flags and dynamic properties Flink's own start scripts would compute (BashJavaUtils)."""
    r = subprocess.run(["java", "-cp", CLASSPATH, "org.apache.flink.runtime.util.bash.BashJavaUtils",
                        which, "--configDir", str(conf)], capture_output=True, text=True, check=True)
    res = [ln.split(":", 1)[1] for ln in r.stdout.splitlines() if ln.startswith("BASH_JAVA_UTILS_EXEC_RESULT:")]
    return res[0].split(), res[1].split() if len(res) > 1 else []


def start_jobmanager():
    if not port_free(FLINK_PORT):
        raise SystemExit(f"port {FLINK_PORT} on {HOST} is taken")
    shutil.rmtree(FLINK, ignore_errors=True)
    conf = flink_conf()
    jvm, dyn = _resource_params("GET_JM_RESOURCE_PARAMS", conf)
    logf = WORK / "logs" / "flink-jobmanager.log"
    start("flink-jobmanager",
          ["java", *jvm, *JAVA_OPENS, f"-Dlog.file={logf}", f"-Dlog4j.configurationFile=file:{conf / 'log4j.properties'}",
           "-cp", CLASSPATH, "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
           "--configDir", str(conf), *dyn],
          WORK / "logs" / "flink-jobmanager.out")
    wait_for("the Flink REST API", lambda: rest("GET", "/overview"), timeout=90)
    VERSIONS["flink"] = rest("GET", "/config").get("flink-version", VERSIONS["flink"])
    log("Flink JobManager up, version", VERSIONS["flink"])


_tm_count = 0


def start_taskmanager() -> str:
    global _tm_count
    _tm_count += 1
    conf = FLINK / "conf"
    jvm, dyn = _resource_params("GET_TM_RESOURCE_PARAMS", conf)
    name = f"flink-taskmanager-{_tm_count}"
    logf = WORK / "logs" / f"{name}.log"
    before = {t["id"] for t in rest("GET", "/taskmanagers")["taskmanagers"]}
    start(name, ["java", *jvm, *JAVA_OPENS, f"-Dlog.file={logf}",
                 f"-Dlog4j.configurationFile=file:{conf / 'log4j.properties'}", "-cp", CLASSPATH,
                 "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", "--configDir", str(conf), *dyn],
          WORK / "logs" / f"{name}.out")
    wait_for("a TaskManager to register",
             lambda: {t["id"] for t in rest("GET", "/taskmanagers")["taskmanagers"]} - before, timeout=90)
    return name


def rest(method: str, path: str, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://{HOST}:{FLINK_PORT}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as r:
        txt = r.read()
        return json.loads(txt) if txt else {}


def labjob(*args: str) -> dict:
    """Run the Java helper (create / submit) and return its LAB line as a dict."""
    r = subprocess.run(["java", *JAVA_OPENS, "-Dlog4j.configurationFile=file:" + str(FLINK / "conf" / "log4j.properties"),
                        f"-Dlog.file={WORK / 'logs' / 'labjob-client.log'}", "-cp", CLASSPATH, "lab.LabJob", *args],
                       capture_output=True, text=True)
    lines = [ln[4:] for ln in r.stdout.splitlines() if ln.startswith("LAB ")]
    if r.returncode != 0 or not lines:
        raise RuntimeError(f"LabJob {' '.join(args)} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}")
    return json.loads(lines[-1])


def flink_run(run_options: list[str], *args: str) -> dict:
    """`flink run -d <run_options> -c lab.LabJob icescope-lab.jar <args> client=cli`: Flink's own CLI
    (org.apache.flink.client.cli.CliFrontend, the class bin/flink runs) from the lab's classpath, with
    the lab's config.yaml (FLINK_CONF_DIR); the program uses the environment the CLI provides. Returns
    the program's last LAB line, plus the command as run (`flink_run`)."""
    cmd = ["run", "-d", *run_options, "-c", "lab.LabJob", str(JAVA / "target" / "icescope-lab.jar"), *args, "client=cli"]
    r = subprocess.run(["java", *JAVA_OPENS, "-Dlog4j.configurationFile=file:" + str(FLINK / "conf" / "log4j.properties"),
                        f"-Dlog.file={WORK / 'logs' / 'flink-run-client.log'}", "-cp", CLASSPATH,
                        "org.apache.flink.client.cli.CliFrontend", *cmd],
                       capture_output=True, text=True, env={**os.environ, "FLINK_CONF_DIR": str(FLINK / "conf")})
    lines = [ln[4:] for ln in r.stdout.splitlines() if ln.startswith("LAB ")]
    if r.returncode != 0 or not lines or '"submitted"' not in lines[-1]:
        raise RuntimeError(f"flink {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}")
    return {**json.loads(lines[-1]), "flink_run": ["flink", *cmd]}


def job_state(job: str) -> str:
    return rest("GET", f"/jobs/{job}")["state"]


def wait_job(job: str, states=("FINISHED",), timeout=600.0) -> str:
    def ok():
        s = job_state(job)
        if s in ("FAILED", "CANCELED") and s not in states:
            raise RuntimeError(f"job {job} is {s}")
        return s if s in states else None
    return wait_for(f"job {job} in {states}", ok, timeout=timeout, every=1.0)


def wait_running(job: str, timeout=120.0):
    """RUNNING with every task running (the job state turns RUNNING before its tasks do)."""
    def ok():
        j = rest("GET", f"/jobs/{job}")
        return j["state"] == "RUNNING" and all(v["status"] == "RUNNING" for v in j["vertices"])
    wait_for(f"job {job} tasks running", ok, timeout=timeout)


def source_records(job: str) -> int:
    j = rest("GET", f"/jobs/{job}")
    for v in j["vertices"]:
        if "generator" in v["name"]:
            return int(v["metrics"].get("write-records", 0))
    return 0


def checkpoint_counts(job: str) -> dict:
    return rest("GET", f"/jobs/{job}/checkpoints")["counts"]


def cancel_job(job: str):
    rest("PATCH", f"/jobs/{job}?mode=cancel")
    wait_job(job, ("CANCELED",), timeout=60)


def stop_with_savepoint(job: str) -> dict:
    t0 = now_ms()
    trig = rest("POST", f"/jobs/{job}/stop", {"targetDirectory": f"file://{FLINK / 'savepoints'}", "drain": False,
                                              "formatType": "CANONICAL"})
    loc = savepoint_location(job, trig["request-id"])
    state = wait_job(job, ("FINISHED", "CANCELED"), timeout=60)
    return {"savepoint_path": loc, "checkpoint_id": savepoint_checkpoint_id(job, loc), "stopped_job": True,
            "requested_at_ms": t0, "completed_by_ms": now_ms(), "job_state_after": state}


def savepoint_location(job: str, request_id: str) -> str:
    """Waits for a triggered savepoint (stopping the job or not) and returns where it was written."""
    def done():
        r = rest("GET", f"/jobs/{job}/savepoints/{request_id}")
        if r["status"]["id"] == "COMPLETED":
            if "failure-cause" in r["operation"]:
                raise RuntimeError(f"savepoint failed: {r['operation']['failure-cause']}")
            return r["operation"]["location"]
        return None
    return wait_for("the savepoint", done, timeout=120)


def savepoint_checkpoint_id(job: str, location: str):
    """The checkpoint id Flink gave the savepoint written to `location` (the job's checkpoint history)."""
    for h in rest("GET", f"/jobs/{job}/checkpoints").get("history", []):
        if h.get("is_savepoint") and h.get("external_path") and location.rstrip("/").endswith(h["external_path"].rstrip("/").split("://")[-1]):
            return h["id"]
    return None


def trigger_savepoint(job: str) -> dict:
    """A savepoint that does NOT stop the job (REST POST /jobs/:id/savepoints, cancel-job false)."""
    t0 = now_ms()
    trig = rest("POST", f"/jobs/{job}/savepoints", {"target-directory": f"file://{FLINK / 'savepoints'}",
                                                   "cancel-job": False, "formatType": "CANONICAL"})
    loc = savepoint_location(job, trig["request-id"])
    cid = wait_for("the savepoint in the checkpoint history", lambda: savepoint_checkpoint_id(job, loc), timeout=30)
    return {"savepoint_path": loc, "checkpoint_id": cid, "stopped_job": False, "requested_at_ms": t0,
            "completed_by_ms": now_ms(), "job_state_after": job_state(job)}


def job_facts(job: str) -> dict:
    """What Flink's REST API says about one job: states, times, per-operator records, checkpoints."""
    j = rest("GET", f"/jobs/{job}")
    cp = rest("GET", f"/jobs/{job}/checkpoints")
    exc = rest("GET", f"/jobs/{job}/exceptions?maxExceptions=50")
    hist = sorted(cp.get("history", []), key=lambda h: h["id"])
    restored = (cp.get("latest") or {}).get("restored")
    return {
        "job_id": j["jid"],
        "name": j["name"],
        "state": j["state"],
        "start_time_ms": j["start-time"],
        "end_time_ms": j["end-time"],
        "duration_ms": j["duration"],
        "state_timestamps_ms": j.get("timestamps", {}),
        "operators": [{"name": v["name"], "status": v["status"],
                       "read_records": v["metrics"].get("read-records"),
                       "write_records": v["metrics"].get("write-records")} for v in j["vertices"]],
        "source_records_emitted": next((int(v["metrics"].get("write-records", 0)) for v in j["vertices"]
                                        if "generator" in v["name"]), None),
        "checkpoints": {
            "counts": cp["counts"],
            "completed_ids": [h["id"] for h in hist if h["status"] == "COMPLETED" and not h.get("is_savepoint")],
            "savepoint_ids": [h["id"] for h in hist if h["status"] == "COMPLETED" and h.get("is_savepoint")],
            "failed_ids": [h["id"] for h in hist if h["status"] == "FAILED"],
            "failed_reasons": sorted({h.get("failure_message", "")[:200] for h in hist if h["status"] == "FAILED"}),
            "latest_restored": restored,
            "history": [{k: h.get(k) for k in ("id", "status", "is_savepoint", "checkpoint_type", "external_path", "trigger_timestamp",
                                              "latest_ack_timestamp", "end_to_end_duration", "num_acknowledged_subtasks",
                                              "num_subtasks", "failure_message")} for h in hist],
        },
        "exceptions": {
            "count": len(exc.get("exceptionHistory", {}).get("entries", [])),
            "first_lines": [e.get("exceptionName", "") + ": " + (e.get("stacktrace", "").splitlines() or [""])[0][:300]
                            for e in exc.get("exceptionHistory", {}).get("entries", [])][:10],
        },
    }


# ---------------------------------------------------------------- Spark

# A local Hadoop catalog (a warehouse folder under work/, no server) for the scenarios that need only
# Spark: v3 deletion vectors (SeaweedFS refuses the Puffin writer's existence check, see README).
HADOOP_CATALOG = "labfs"
HADOOP_WAREHOUSE = WORK / "v3wh"
SPARK_CATALOGS = {"rest", "hadoop"}  # which catalogs spark() registers; lab.py narrows it to what it started


def spark():
    global _spark
    if _spark is None:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ["SPARK_LOCAL_IP"] = HOST
        from pyspark.sql import SparkSession
        b = (SparkSession.builder.master("local[2]").appName("icescope-lab")
             .config("spark.jars", ",".join(SPARK_JARS))
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.driver.host", HOST).config("spark.driver.bindAddress", HOST)
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "1g").config("spark.sql.shuffle.partitions", "2")
             .config("spark.driver.extraJavaOptions", f"-Dlog4j.configurationFile=file:{LAB / 'spark-log4j2.properties'}"))
        if "hadoop" in SPARK_CATALOGS:
            hc = f"spark.sql.catalog.{HADOOP_CATALOG}"
            b = (b.config(hc, "org.apache.iceberg.spark.SparkCatalog").config(f"{hc}.type", "hadoop")
                 .config(f"{hc}.warehouse", HADOOP_WAREHOUSE.as_uri()).config(f"{hc}.cache-enabled", "false"))
        cat = "spark.sql.catalog.lab"
        if "rest" in SPARK_CATALOGS:
            b = (b.config(cat, "org.apache.iceberg.spark.SparkCatalog")
                 .config(f"{cat}.type", "rest").config(f"{cat}.uri", f"http://{HOST}:{CATALOG_PORT}")
                 .config(f"{cat}.rest.auth.type", "oauth2")
                 .config(f"{cat}.oauth2-server-uri", f"http://{HOST}:{CATALOG_PORT}/v1/oauth/tokens")
                 .config(f"{cat}.credential", f"{S3_KEY}:{S3_SECRET}").config(f"{cat}.scope", "catalog")
                 .config(f"{cat}.warehouse", BUCKET)
                 .config(f"{cat}.cache-enabled", "false")
                 .config(f"{cat}.io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
                 .config(f"{cat}.s3.endpoint", f"http://{HOST}:{S3_PORT}")
                 .config(f"{cat}.s3.path-style-access", "true")
                 .config(f"{cat}.s3.access-key-id", S3_KEY).config(f"{cat}.s3.secret-access-key", S3_SECRET)
                 .config(f"{cat}.client.region", "us-east-1"))
        _spark = b.getOrCreate()
        _spark.sparkContext.setLogLevel("WARN")
        VERSIONS["spark"] = _spark.version
        log("Spark up:", _spark.version)
    return _spark


def sql(q: str) -> list[dict]:
    rows = spark().sql(q).collect()
    return [r.asDict(recursive=True) for r in rows]


def _j(v):
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): _j(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_j(x) for x in v]
    return v


def table_facts(t: str, key: str = "id") -> dict:
    """Spark's reading of the table: counts, snapshots with their Flink keys, files per partition."""
    cnt = sql(f"SELECT count(*) AS n, count(DISTINCT {key}) AS k FROM {t}")[0]
    snaps = sql(f"SELECT committed_at, snapshot_id, parent_id, operation, summary FROM {t}.snapshots ORDER BY committed_at")
    has_part = any(c["col_name"] == "partition" for c in sql(f"DESCRIBE TABLE {t}.files"))
    part = "partition" if has_part else "CAST(NULL AS STRING) AS partition"
    files = sql(f"SELECT content, {part}, count(*) AS files, sum(record_count) AS records, "
                f"sum(file_size_in_bytes) AS bytes FROM {t}.files GROUP BY 1, 2 ORDER BY 2, 1")
    meta = sql(f"SELECT timestamp, file, latest_snapshot_id, latest_schema_id, latest_sequence_number "
               f"FROM {t}.metadata_log_entries ORDER BY timestamp")
    jobs: dict[str, dict] = {}
    for s in snaps:
        sm = s["summary"] or {}
        jid = sm.get("flink.job-id")
        if jid:
            j = jobs.setdefault(jid, {"snapshots": 0, "added_records": 0, "checkpoint_ids": [],
                                      "first_commit": _j(s["committed_at"]), "last_commit": None,
                                      "operator_ids": []})
            j["snapshots"] += 1
            j["added_records"] += int(sm.get("added-records", 0))
            j["checkpoint_ids"].append(int(sm["flink.max-committed-checkpoint-id"]))
            j["last_commit"] = _j(s["committed_at"])
            if sm.get("flink.operator-id") not in j["operator_ids"]:
                j["operator_ids"].append(sm.get("flink.operator-id"))
    return {
        "queried_with": f"Spark {VERSIONS['spark']} (iceberg-spark-runtime {VERSIONS['iceberg']})",
        "rows": cnt["n"], "distinct_ids": cnt["k"],
        "snapshots": [{"snapshot_id": s["snapshot_id"], "parent_id": s["parent_id"],
                       "committed_at": _j(s["committed_at"]), "operation": s["operation"],
                       "summary": _j(s["summary"])} for s in snaps],
        "flink_jobs_in_snapshot_log": jobs,
        "files_by_partition": [{"content": {0: "data", 1: "position_deletes", 2: "equality_deletes"}.get(f["content"], f["content"]),
                                "partition": _j(f["partition"]), "files": f["files"], "records": f["records"],
                                "bytes": f["bytes"]} for f in files],
        "metadata_log": [{"timestamp": _j(m["timestamp"]), "file": m["file"], "latest_snapshot_id": m["latest_snapshot_id"],
                          "latest_schema_id": m["latest_schema_id"], "latest_sequence_number": m["latest_sequence_number"]}
                         for m in meta],
    }


def current_snapshot(t: str):
    r = sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'main'")
    return r[0]["snapshot_id"] if r else None


def catalog_table(ident: str) -> dict:
    """The REST catalog's own loadTable answer (the metadata it serves)."""
    ns, name = ident.split(".")
    return catalog_get(f"/v1/{BUCKET}/namespaces/{ns}/tables/{name}")


def current_schema_id(ident: str):
    return catalog_table(ident)["metadata"]["current-schema-id"]


def referenced_files(t: str) -> set[str]:
    """Every data and delete file any snapshot still in the metadata references."""
    rows = sql(f"SELECT DISTINCT file_path FROM {t}.all_files")
    return {r["file_path"] for r in rows}


def call(proc: str, args: str) -> list[dict]:
    return [_j(r) for r in sql(f"CALL lab.system.{proc}({args})")]
