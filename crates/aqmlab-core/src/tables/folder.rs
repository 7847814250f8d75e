//! A run's tables as Parquet files in a folder, `<table>.parquet`: the tables that grow with the run's
//! length are appended batch by batch as the run goes (row groups of at most [`RECORD_BATCH`] rows, so
//! memory stays bounded whatever the run's length), the others are written at its end.

use crate::engine::{Batch, RECORD_BATCH};
use crate::metrics::RunResult;
use crate::scenario::build::Model;
use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// One table's Parquet file, open for appending batches.
struct TableFile {
    path: PathBuf,
    writer: ArrowWriter<File>,
}

impl TableFile {
    /// Creates `dir/<name>.parquet` with the columns of `empty`.
    fn create(dir: &Path, name: &str, empty: &RecordBatch) -> io::Result<TableFile> {
        let path = dir.join(format!("{name}.parquet"));
        let file = File::create(&path).map_err(|e| located(&path, e))?;
        // Snappy, as pyarrow writes by default: files of the same size as before.
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(RECORD_BATCH))
            .build();
        let writer =
            ArrowWriter::try_new(file, empty.schema(), Some(props)).map_err(|e| located(&path, e))?;
        Ok(TableFile { path, writer })
    }

    fn append(&mut self, batch: &RecordBatch) -> io::Result<()> {
        self.writer.write(batch).map_err(|e| located(&self.path, e))
    }

    /// Finishes the file and flushes it to disk.
    fn close(self) -> io::Result<()> {
        let file = self.writer.into_inner().map_err(|e| located(&self.path, e))?;
        file.sync_all().map_err(|e| located(&self.path, e))
    }
}

fn located(path: &Path, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{}: {e}", path.display()))
}

/// The Parquet files of one run in a folder: the streamed tables are created (empty) with the run,
/// filled by [`TableFiles::append`] and closed, with the end-of-run tables written, by
/// [`TableFiles::finish`].
pub struct TableFiles {
    dir: PathBuf,
    link_names: Vec<String>,
    class_names: Vec<String>,
    queue_samples: TableFile,
    aqm_samples: TableFile,
    cwnd_trace: TableFile,
    flow_series: TableFile,
    window_links: TableFile,
    window_responses: TableFile,
    /// With `measure.pair_records`.
    pairs: Option<TableFile>,
}

impl TableFiles {
    pub fn create(dir: &Path, model: &Model) -> io::Result<TableFiles> {
        let link_names: Vec<String> = model.links.iter().map(|l| l.name.clone()).collect();
        let class_names = model.classes.clone();
        // A streamed table's file, created empty and named after the table.
        macro_rules! empty {
            ($table:ident $(, $names:expr)?) => {
                TableFile::create(dir, stringify!($table), &super::$table(&Default::default() $(, $names)?))?
            };
        }
        let pairs = match model.pair_records {
            true => Some(empty!(pairs, &[])),
            false => None,
        };
        Ok(TableFiles {
            dir: dir.to_path_buf(),
            queue_samples: empty!(queue_samples, &[]),
            aqm_samples: empty!(aqm_samples, &[]),
            cwnd_trace: empty!(cwnd_trace),
            flow_series: empty!(flow_series),
            window_links: empty!(window_links, &[]),
            window_responses: empty!(window_responses, &[]),
            pairs,
            link_names,
            class_names,
        })
    }

    /// Appends a batch of a streamed table (captures are not tables: they are left to the caller).
    pub fn append(&mut self, batch: Batch) -> io::Result<()> {
        match batch {
            Batch::QueueSamples(q) => self.queue_samples.append(&super::queue_samples(q, &self.link_names)),
            Batch::AqmSamples(a) => self.aqm_samples.append(&super::aqm_samples(a, &self.link_names)),
            Batch::CwndTrace(c) => self.cwnd_trace.append(&super::cwnd_trace(c)),
            Batch::FlowSeries(s) => self.flow_series.append(&super::flow_series(s)),
            Batch::WindowLinks(w) => self.window_links.append(&super::window_links(w, &self.link_names)),
            Batch::WindowResponses(w) => {
                self.window_responses.append(&super::window_responses(w, &self.class_names))
            }
            Batch::Pairs(p) => match &mut self.pairs {
                Some(file) => file.append(&super::pairs(p, &self.class_names)),
                None => Ok(()),
            },
            Batch::Pcap { .. } => Ok(()),
        }
    }

    /// Closes the streamed tables' files and writes the end-of-run tables of `result`.
    pub fn finish(self, result: &RunResult) -> io::Result<()> {
        let streamed = [
            self.queue_samples,
            self.aqm_samples,
            self.cwnd_trace,
            self.flow_series,
            self.window_links,
            self.window_responses,
        ];
        for file in streamed.into_iter().chain(self.pairs) {
            file.close()?;
        }
        for (name, batch) in super::end_of_run(result) {
            let mut file = TableFile::create(&self.dir, name, &batch)?;
            file.append(&batch)?;
            file.close()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    /// A file's row-group sizes and its batches as read.
    fn read(path: &Path) -> (Vec<usize>, Vec<RecordBatch>) {
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("written"))
            .expect("a Parquet file");
        let groups = builder.metadata().row_groups().iter().map(|g| g.num_rows() as usize).collect();
        let batches = builder.build().expect("readable").collect::<Result<_, _>>().expect("readable");
        (groups, batches)
    }

    /// Compares a file with the table the engine keeps in memory, batch by batch (NaN included).
    fn assert_file_holds(path: &Path, whole: &RecordBatch) -> Vec<usize> {
        let (groups, batches) = read(path);
        let mut offset = 0;
        for b in &batches {
            assert_eq!(b.schema().fields(), whole.schema().fields(), "{}", path.display());
            assert_eq!(b.columns(), whole.slice(offset, b.num_rows()).columns(), "{}", path.display());
            offset += b.num_rows();
        }
        assert_eq!(offset, whole.num_rows(), "{}", path.display());
        groups
    }

    /// The files written as a run goes hold exactly the tables of the same run kept in memory, in row
    /// groups of at most `RECORD_BATCH` rows; pairs, queue and AQM samples carry names. (PackMime has no
    /// static flows: the window trace and flow series are empty here, and compared with the in-memory
    /// ones batch by batch in the engine's tests.)
    #[test]
    fn the_files_hold_the_tables_of_the_run_in_bounded_row_groups() {
        // RED on the bottleneck, for AQM samples.
        let packmime = include_str!("../../../../scenarios/packmime-delaybox.toml")
            .replace(r#"{ kind = "droptail", limit = 100 }"#, r#"{ kind = "red", limit = 100 }"#);
        let overrides: Vec<String> = [
            "duration=\"23s\"",
            "measure.pair_records=true",
            "measure.sample_links=[\"all\"]",
            "measure.sample_interval=\"100us\"",
            "measure.window=\"2s\"",
        ]
        .map(String::from)
        .into();
        let model = crate::load(&packmime, "packmime-delaybox.toml", &overrides, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<String> = model.links.iter().map(|l| l.name.clone()).collect();
        let whole = crate::run(model.clone(), None);
        let dir = std::env::temp_dir().join(format!("aqmlab-table-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let streamed = crate::run_into(model.clone(), None, &dir, &mut |_, _| {}).expect("written");
        let file = |name: &str| dir.join(format!("{name}.parquet"));
        let groups = assert_file_holds(
            &file("queue_samples"),
            &super::super::queue_samples(&whole.queue_samples, &names),
        );
        assert!(groups.len() > 2 && groups.iter().all(|&n| n <= RECORD_BATCH), "{groups:?}");
        let aqm = super::super::aqm_samples(&whole.aqm_samples, &names);
        assert!(aqm.num_rows() > 0);
        assert_file_holds(&file("aqm_samples"), &aqm);
        assert_file_holds(&file("cwnd_trace"), &super::super::cwnd_trace(&whole.cwnd_trace));
        assert_file_holds(&file("flow_series"), &super::super::flow_series(&whole.flow_series));
        let windows = super::super::window_links(&whole.window_links, &names);
        // Measured from 20 s to 23 s: a window of 2 s and a last, shorter one.
        assert_eq!(windows.num_rows(), 6 * 2, "6 link directions, 2 windows");
        assert_file_holds(&file("window_links"), &windows);
        let windows = super::super::window_responses(&whole.window_responses, &model.classes);
        assert!(windows.num_rows() > 0);
        assert_file_holds(&file("window_responses"), &windows);
        let pairs = super::super::pairs(&whole.pairs, &model.classes);
        assert!(pairs.num_rows() > 0);
        assert_file_holds(&file("pairs"), &pairs);
        for (name, batch) in super::super::end_of_run(&whole) {
            assert_file_holds(&file(name), &batch);
        }
        // NaN and infinity are floats in the files, not nulls (the top response bin ends at infinity).
        let (_, bins) = read(&file("response_bins"));
        assert!(bins.iter().all(|b| b.columns().iter().all(|c| c.null_count() == 0)));
        assert_eq!(streamed.summary.events, whole.summary.events);
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
