#pragma once
// Energy per point from the GPU's cumulative energy counter (NVML's
// nvmlDeviceGetTotalEnergyConsumption). The counter moves in steps, once per update period (100 ms
// on an H100), so a point's energy is read over a window of whole periods while its launches run
// back to back: the window opens at the first step after the launches began (the step before
// may hold idle time) and closes after `counter_periods` more steps. Average power is the energy
// of those steps over their time; joules per launch are that power times the launches' own time
// per launch (cudaEvents around the stretch). The meter learns the period and the idle power at
// the start of the run, with the GPU idle. The driver's power samples (nvmlDeviceGetSamples)
// within the same window are averaged beside it, as a cross-check of the counter.
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// What the meter reads: NVML on a GPU, a stand-in in the CPU tests.
class EnergyReadings {
 public:
  virtual ~EnergyReadings() = default;
  virtual std::optional<double> counter_j(std::string& why) = 0;  // energy since the driver loaded
  // The driver's power samples taken since `since_s` (seconds of the system clock since the
  // epoch): (timestamp in the same seconds, watts), oldest first; empty with `why`.
  virtual std::vector<std::pair<double, double>> power_samples(double since_s, std::string& why) = 0;
  // The GPU's temperature (°C), or nullopt where it cannot be read: a board draws more power hot
  // than cold at the same clock, so two runs' joules are compared at their temperatures.
  virtual std::optional<double> temperature_c() { return std::nullopt; }
  // The power limit the board enforces (W), or nullopt where it cannot be read.
  virtual std::optional<double> power_limit_w() { return std::nullopt; }
  // The meter's clock, the host's by default: seconds of the steady clock, a pause between
  // readings, and the system clock's seconds since the epoch that power samples are stamped with.
  // A stand-in keeps its own, so that its tests see the same polls on a loaded host as on an idle one.
  virtual double now_s();
  virtual void pause_s(double seconds);
  virtual double epoch_s();
};
// NVML's readings of the GPU at a PCI bus id, or nullptr with `why` (no NVML, no such device).
std::unique_ptr<EnergyReadings> nvml_energy_readings(const std::string& pci_bus_id, std::string& why);

// How much GPU work is queued ahead of the GPU while it must stay busy: enough that it never waits
// while the host reads NVML (a reading may take a few ms).
constexpr double kQueueAheadS = 0.020;

// What keeps the GPU busy through a window: the point's launches, back to back (a stand-in in tests).
struct BusyStretch {
  long long launches = 0;
  double busy_s = 0;          // GPU time from the first launch to the end of the last
  double host_enqueue_s = 0;  // the host's time spent queuing them
};
class BusyWork {
 public:
  virtual ~BusyWork() = default;
  // Queues launches until about `ahead_s` of GPU work waits ahead of the GPU (at least one
  // launch); returns at once.
  virtual void keep_busy(double ahead_s) = 0;
  virtual BusyStretch finish() = 0;  // queues no more, waits for the GPU, says what ran
};

// How many chunks of `chunk_s` to queue behind `queued` ones holding `queued_ahead_s` of GPU work,
// so that about `ahead_s` waits ahead (at least one chunk queued, at most 32). Decided once per
// call: where the host queues slower than the GPU runs (kernels of a few us), queuing until the
// estimate is met would never end.
int chunks_to_queue(int queued, double queued_ahead_s, double ahead_s, double chunk_s);

// The counter's update period and the idle power, from readings (seconds, joules) taken with the
// GPU idle: the median time between its changes, and the energy between the first and last change.
struct CounterCalibration {
  double period_s = 0;
  double idle_w = 0;
  int updates = 0;     // changes seen
  double span_s = 0;   // from the first change to the last
  std::vector<double> intervals_s;  // between changes
  std::string reason;  // why the counter cannot be used; "" when it can
};
CounterCalibration calibrate_counter(const std::vector<std::pair<double, double>>& readings);

struct EnergySettings {
  double window_s = 0.2;        // measurement.energy_window_s, rounded to whole update periods
  double calibration_s = 1.0;   // idle readings at the start of the run, at most
  double poll_s = 0.001;        // between readings in a window
  double calibration_poll_s = 0.0002;  // between idle readings: the changes' times to 0.2 ms
  // A second window of every point, at least this long, recorded beside the first (0: none): the
  // effect of the window's length measured in one process at one temperature, where two runs
  // differ by the GPU's temperature too. From OCCBENCH_ENERGY_SECOND_WINDOW_S.
  double second_window_s = 0;
};
// OCCBENCH_ENERGY_SECOND_WINDOW_S (seconds, 0.05-60), 0 where unset; std::invalid_argument naming
// the variable where it is not such a number.
double second_window_s_from_environment();

// Whole periods in a window of `window_s` (at least one), and in any case about one whole launch
// of `launch_s`: a window shorter than a launch would read a part of it, and a kernel's power is
// not the same from its start to its end (the 0.7 s covariance kernels: 4% from process to process).
int counter_periods(double window_s, double period_s, double launch_s = 0);
// When the counter's steps fell. A change is seen at the first read after it, so its step lies
// between that read and the one before. Seen within a quarter period of the read before, the change
// is one step (a quarter period holds no more), dated to the read. Seen after a longer gap (a late
// poll on a loaded host), it holds every step the period puts between the last dated step and the
// read, the newest dated by the period from the last: the time since the last change over the
// period, rounded, counted a poll late by more than half a period as one step more.
struct CounterStep {
  double seen_s = 0;         // the read that saw the change
  double read_before_s = 0;  // the read before it, which had not
};
struct DatedSteps {
  int updates = 1;      // the counter's updates the change holds (at least one)
  double step_s = 0;    // when the newest of them fell, to `error_s` (later than it by at most that)
  double error_s = 0;
  bool on_time = true;  // seen within a quarter period: its interval is one to learn the period from
};
// The step a change shows where no step was dated before it (the one that opens a window).
DatedSteps first_step(const CounterStep& change, double period_s);
DatedSteps date_steps(const DatedSteps& last, const CounterStep& change, double period_s);

// One point's window.
struct EnergyWindow {
  std::string status = "ok";  // "ok" or "unavailable"
  std::string reason;
  int counter_periods = 0;
  double window_s = 0;        // counter_periods x the update period
  double energy_j = 0;        // the counter's steps over the window
  double average_w = 0;
  long long launches = 0;     // back to back, from before the window opened to after it closed
  double busy_s = 0;
  double launch_ms = 0;       // busy_s / launches
  double host_enqueue_us_per_launch = 0;  // above launch_ms x 1000 the GPU waited for the host
  int power_samples = 0;      // the driver's power samples within the window, and their mean
  double power_mean_w = 0;
  std::optional<double> temperature_c;  // the GPU's, as the window closed
  double wall_s = 0;
};

// A kernel that draws more than the board's power limit runs over it for a while (cuBLAS SSYRK on
// the H100: 750-770 W against 700 W for about 0.6 s) until the power controller, which holds a
// moving average of about a second to the limit, lowers the clock; from then on it cycles (the
// H100: 0.9 s from one clock drop to the next, 510-770 W). A window shorter than that cycle reads
// a part of it, and one that opens before the limit engaged reads the burst: at the limit a
// window opens once NVML reports the power cap and lasts at least this long.
constexpr double kPowerLimitWindowS = 1.0;
// Whether a window read a kernel at the power limit: its average over the limit by more than the
// counter's error (3%), or within 10% of it with the power cap engaged during the window
// (`power_capped`: NVML's sw_power_cap; where the limit is unknown, the cap alone). In a cycle
// of the controller a 0.2 s window may read below the limit (its low phase: 510-650 W on the H100).
bool at_power_limit(const EnergyWindow& window, std::optional<double> power_limit_w, bool power_capped);

class EnergyMeter {
 public:
  // Calibrates with the GPU idle (settings.calibration_s); unavailable with the reason when
  // `readings` is null or the counter fails or does not move.
  EnergyMeter(std::unique_ptr<EnergyReadings> readings, const EnergySettings& settings, std::string unavailable_reason = "");
  bool available() const { return reason_.empty(); }
  const std::string& unavailable_reason() const { return reason_; }
  const CounterCalibration& calibration() const { return calibration_; }
  const EnergySettings& settings() const { return settings_; }
  std::optional<double> power_limit_w() const { return power_limit_w_; }
  // One window while `work` keeps the GPU busy with launches of about `launch_s` each, at least
  // `min_window_s` long (kPowerLimitWindowS at the power limit).
  EnergyWindow measure(BusyWork& work, double launch_s = 0, double min_window_s = 0);
  nlohmann::ordered_json to_json() const;  // the run's energy block

 private:
  void calibrate();
  void learn_interval(double interval_s);
  std::unique_ptr<EnergyReadings> readings_;
  std::vector<double> intervals_s_;  // the calibration's and every window's, the newest kept
  double period_s_ = 0;              // their median: the period each window is measured with
  std::optional<double> power_limit_w_;
  EnergySettings settings_;
  CounterCalibration calibration_;
  std::string reason_;
};

// |the power samples' mean / the counter's average watts - 1| of a window with at least 5 samples
// (0 with fewer), and whether it is over 3%: a window worth measuring again.
double counter_vs_samples(const EnergyWindow& window);
bool counter_disagrees_with_samples(const EnergyWindow& window);
// The board's energy per back-to-back launch: the window's average watts x its time per launch.
double joules_per_launch(const EnergyWindow& window);
// Whether queuing a launch took the host about as long as the GPU took to run one (80% or
// more): then the GPU waited for the host between launches, and the window's watts hold those gaps.
bool host_bound(const EnergyWindow& window);
// A window and the one measured again after it: the one whose counter agrees better with its
// samples first (the first on a tie), the other second.
std::pair<EnergyWindow, EnergyWindow> better_window_first(const EnergyWindow& first, const EnergyWindow& again);

// A point's energy section from its window and work model (flops, dram bytes per launch).
nlohmann::ordered_json energy_json(const EnergyWindow& window, double idle_w, double flops, double dram_bytes);
nlohmann::ordered_json energy_unavailable_json(const std::string& reason);

}  // namespace occbench
