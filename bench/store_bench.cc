// The store's speed targets (issue "Live profiling"): ingest >= 1 M samples/s for a real
// node's batch shape, and < 100 ms to query one metric of one GPU over a 24 h x 8 GPU x
// 10 Hz profile. Also measures the alternative the store did not choose (one SQLite row
// per sample) so docs/store.md can say why blocks. Prints figures; run by scripts/bench.sh.
//
//   kraken_store_bench [--hours H] [--row-hours H] [--dir DIR] [--keep]
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/synthetic_node.h"

namespace {

using Clock = std::chrono::steady_clock;
using kraken::store::testing::MakeNodeBatch;
using kraken::store::testing::NodeShape;
using kraken::store::testing::PassTime;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

uint64_t FileBytes(const std::string& path) {
  uint64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    struct stat st {};
    if (::stat((path + suffix).c_str(), &st) == 0) total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

void Die(const kraken::Status& status) {
  std::fprintf(stderr, "kraken_store_bench: %s\n", status.message().c_str());
  std::exit(1);
}

struct QueryTimes {
  double first_ms = 0, median_ms = 0, best_ms = 0;
  size_t points = 0;
};

QueryTimes TimeQuery(kraken::ProfileStore& store, const kraken::SeriesQuery& query) {
  std::vector<double> ms;
  QueryTimes times;
  for (int i = 0; i < 11; ++i) {
    auto t0 = Clock::now();
    auto result = store.QuerySeries(query);
    ms.push_back(Seconds(Clock::now() - t0) * 1e3);
    if (!result.ok()) Die(result.status());
    if (result->size() != 1) Die(kraken::InvalidInput("query matched " + std::to_string(result->size()) + " series"));
    times.points = query.max_points > 0 ? result->front().points.size() : result->front().samples.size();
  }
  times.first_ms = ms.front();
  std::sort(ms.begin(), ms.end());
  times.median_ms = ms[ms.size() / 2];
  times.best_ms = ms.front();
  return times;
}

// The store's way: live ingest into packed blocks, then the two queries.
void BenchBlocks(const std::string& path, double hours) {
  const NodeShape shape;
  const auto passes = static_cast<uint64_t>(hours * 3600 * 10);
  const auto per_pass = static_cast<uint64_t>(kraken::store::testing::ValuesPerPass(shape));
  std::printf("profile: %.1f h x %d GPUs x 10 Hz = %llu passes x %llu values (%d GPU metrics x %d GPUs + %d "
              "process metrics x %d processes x %d GPUs)\n",
              hours, shape.gpus, static_cast<unsigned long long>(passes), static_cast<unsigned long long>(per_pass),
              kraken::store::testing::kGpuMetricCount, shape.gpus, kraken::store::testing::kProcessMetricCount,
              shape.processes_per_gpu, shape.gpus);
  std::printf("  samples: %llu per series, %llu per metric (all GPUs), %llu in all\n",
              static_cast<unsigned long long>(passes), static_cast<unsigned long long>(passes * shape.gpus),
              static_cast<unsigned long long>(passes * per_pass));
  Clock::duration ingest{};
  {
    auto store = kraken::ProfileStore::Open(path);
    if (!store.ok()) Die(store.status());
    kraken::ProfileMetadata md;
    md.format = "nvml";
    auto t0 = Clock::now();
    auto id = (*store)->BeginProfile(md, std::vector<kraken::DeviceInfo>(static_cast<size_t>(shape.gpus)));
    ingest += Clock::now() - t0;
    if (!id.ok()) Die(id.status());
    for (uint64_t pass = 0; pass < passes; ++pass) {
      kraken::SampleBatch batch = MakeNodeBatch(shape, pass, PassTime(pass));  // not timed
      t0 = Clock::now();
      kraken::Status status = (*store)->AppendBatch(*id, batch);
      ingest += Clock::now() - t0;
      if (!status.ok()) Die(status);
    }
    t0 = Clock::now();
    kraken::Status status = (*store)->Commit(*id);
    ingest += Clock::now() - t0;
    if (!status.ok()) Die(status);
  }
  double samples = static_cast<double>(passes * per_pass);
  std::printf("ingest (blocks): %.0f samples/s (%.1f s for %.0f samples; batch generation not timed)\n",
              samples / Seconds(ingest), Seconds(ingest), samples);
  uint64_t bytes = FileBytes(path);
  std::printf("  file: %.1f MB, %.2f bytes/sample\n", static_cast<double>(bytes) / 1e6,
              static_cast<double>(bytes) / samples);

  auto store = kraken::ProfileStore::Open(path, {.read_only = true});
  if (!store.ok()) Die(store.status());
  kraken::SeriesQuery query;
  query.profile_id = 1;
  query.metric = kraken::Metric::kGpuUtilPct;
  query.entity.gpu_index = 3;
  query.entity.pid = -1;
  QueryTimes full = TimeQuery(**store, query);
  std::printf("query one metric of one GPU, full resolution: %zu samples, first %.1f ms, median %.1f ms, best "
              "%.1f ms (of 11)\n",
              full.points, full.first_ms, full.median_ms, full.best_ms);
  query.max_points = 1000;
  QueryTimes down = TimeQuery(**store, query);
  std::printf("query one metric of one GPU, downsampled: %zu points, first %.1f ms, median %.1f ms, best %.1f ms\n",
              down.points, down.first_ms, down.median_ms, down.best_ms);
}

// The alternative: one row per sample in a WITHOUT ROWID table keyed (series_id, time_ns),
// written in transactions of the same size as the store's.
void BenchRows(const std::string& path, double hours) {
  using kraken::store::SqliteDb;
  const NodeShape shape;
  const auto passes = static_cast<uint64_t>(hours * 3600 * 10);
  auto db = SqliteDb::Open(path, false, 5000);
  if (!db.ok()) Die(db.status());
  for (const char* sql : {"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -32768",
                          "CREATE TABLE samples(series_id INTEGER NOT NULL, time_ns INTEGER NOT NULL, value REAL, "
                          "PRIMARY KEY(series_id, time_ns)) WITHOUT ROWID"})
    if (kraken::Status s = (*db)->Exec(sql); !s.ok()) Die(s);
  auto insert = (*db)->Prepare("INSERT INTO samples VALUES(?, ?, ?)");
  if (!insert.ok()) Die(insert.status());
  Clock::duration ingest{};
  uint64_t rows = 0, in_transaction = 0;
  for (uint64_t pass = 0; pass < passes; ++pass) {
    kraken::SampleBatch batch = MakeNodeBatch(shape, pass, PassTime(pass));
    auto t0 = Clock::now();
    if (in_transaction == 0) (void)(*db)->Exec("BEGIN");
    for (size_t i = 0; i < batch.values.size(); ++i) {
      // The series id stands for the store's entity lookup, which this variant would need too.
      insert->Int(static_cast<int64_t>(i)).Int(batch.time_ns).Double(batch.values[i].value);
      if (kraken::Status s = insert->Run(); !s.ok()) Die(s);
    }
    rows += batch.values.size();
    in_transaction += batch.values.size();
    if (in_transaction >= 256 * 512) {
      (void)(*db)->Exec("COMMIT");
      in_transaction = 0;
    }
    ingest += Clock::now() - t0;
  }
  if (in_transaction > 0) (void)(*db)->Exec("COMMIT");
  std::printf("ingest (one row per sample, %.1f h): %.0f samples/s, %.2f bytes/sample\n", hours,
              static_cast<double>(rows) / Seconds(ingest),
              static_cast<double>(FileBytes(path)) / static_cast<double>(rows));
  auto select = (*db)->Prepare("SELECT time_ns, value FROM samples WHERE series_id = ? ORDER BY time_ns");
  if (!select.ok()) Die(select.status());
  double best = 1e30;
  size_t n = 0;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    select->Int(3 * 31);  // GPU 3's utilization
    std::vector<kraken::Sample> samples;
    while (true) {
      auto row = select->Step();
      if (!row.ok()) Die(row.status());
      if (!*row) break;
      samples.push_back({select->ColumnInt(0), select->ColumnDouble(1)});
    }
    select->Reset();
    best = std::min(best, Seconds(Clock::now() - t0) * 1e3);
    n = samples.size();
  }
  std::printf("  query one series: %zu rows in %.1f ms (best of 5); scaled to 24 h: %.0f ms\n", n, best,
              best * 24.0 / hours);
}

}  // namespace

int main(int argc, char** argv) {
  double hours = 24, row_hours = 1;
  bool keep = false;
  std::string dir = std::filesystem::temp_directory_path() / "kraken_store_bench";
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--keep") {
      keep = true;
      --i;
    } else if (i + 1 >= argc) {
      flag = "";
    }
    if (flag == "--keep") continue;
    if (flag == "--hours") hours = std::atof(argv[i + 1]);
    else if (flag == "--row-hours") row_hours = std::atof(argv[i + 1]);
    else if (flag == "--dir") dir = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--hours H] [--row-hours H] [--dir DIR] [--keep]\n", argv[0]);
      return 2;
    }
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  BenchBlocks(dir + "/blocks.db", hours);
  if (row_hours > 0) BenchRows(dir + "/rows.db", row_hours);
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}
