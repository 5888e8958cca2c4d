package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// SessionCounts is the sessions' states at one moment: Live are up and
// idle, Busy up with a run under way or prompts queued, Cold only in the
// store; Queued is the prompts waiting in the live sessions' queues.
type SessionCounts struct {
	Live, Busy, Cold int
	Queued           int
}

// Sources is what Scrape reads when Prometheus asks.
type Sources struct {
	// Sessions counts the sessions by state; nil leaves the series out.
	Sessions func(context.Context) (SessionCounts, error)
	// StorePath is the SQLite store's file ("" leaves its sizes out); its
	// write-ahead log is the file beside it with -wal appended.
	StorePath string
	Log       *slog.Logger
}

// scrapeTimeout bounds the walk over the live sessions at one scrape.
const scrapeTimeout = 5 * time.Second

var (
	sessionsDesc = prometheus.NewDesc("troupe_sessions",
		"Sessions by state: live (up, idle), busy (up, a run under way or prompts queued), cold (in the store only).", []string{"state"}, nil)
	queuedDesc = prometheus.NewDesc("troupe_queued_prompts",
		"Prompts waiting in the live sessions' queues.", nil, nil)
	storeDesc = prometheus.NewDesc("troupe_store_size_bytes",
		"Size of the SQLite store's database file.", nil, nil)
	walDesc = prometheus.NewDesc("troupe_store_wal_size_bytes",
		"Size of the SQLite store's write-ahead log.", nil, nil)
)

// scraper is the collector of what is read at scrape time.
type scraper struct{ src Sources }

func (s scraper) Describe(ch chan<- *prometheus.Desc) {
	ch <- sessionsDesc
	ch <- queuedDesc
	ch <- storeDesc
	ch <- walDesc
}

func (s scraper) Collect(ch chan<- prometheus.Metric) {
	if s.src.Sessions != nil {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		n, err := s.src.Sessions(ctx)
		cancel()
		if err != nil {
			// A scrape without the series says the count failed; a zero
			// would say there were none.
			s.src.Log.Warn("metrics: sessions not counted", "error", err)
		} else {
			ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n.Live), "live")
			ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n.Busy), "busy")
			ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n.Cold), "cold")
			ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(n.Queued))
		}
	}
	if s.src.StorePath == "" {
		return
	}
	ch <- prometheus.MustNewConstMetric(storeDesc, prometheus.GaugeValue, float64(fileSize(s.src.StorePath)))
	ch <- prometheus.MustNewConstMetric(walDesc, prometheus.GaugeValue, float64(fileSize(s.src.StorePath+"-wal")))
}

// fileSize is a file's size, 0 when it is absent (a WAL checkpointed and
// truncated away, say).
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// NewRegistry is a private registry with every troupe metric, the values
// read from src at scrape, and the Go runtime's and the process's own.
func NewRegistry(src Sources) *prometheus.Registry {
	if src.Log == nil {
		src.Log = slog.Default()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(updated()...)
	reg.MustRegister(scraper{src: src},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg in the Prometheus text format.
func Handler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}
