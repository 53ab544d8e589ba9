//! Trait methods that several engines share to the letter, written once
//! as macros to expand inside an `impl Engine`. Macros and not default
//! methods of [`Engine`](super::Engine): the trait knows nothing of an
//! engine's fields, and the defaults it has are right for other engines.

/// `open`, `invalidate_open` and `close` of an engine whose files are a
/// [`FileTable`](super::file_table::FileTable) in `self.files`, opened as
/// the file engines open them ([`open_file`](super::psync::open_file)):
/// a handle is the file's place in the table, dropping an open file's
/// cached pages works on its descriptor, and closing releases it.
macro_rules! file_table_open_close {
    () => {
        fn open(
            &mut self,
            path: &std::path::Path,
            mode: $crate::engine::OpenMode,
        ) -> std::io::Result<usize> {
            Ok(self
                .files
                .push($crate::engine::psync::open_file(path, mode)?))
        }

        fn invalidate_open(&mut self, file: usize) -> Option<std::io::Result<()>> {
            self.files.get(file).map($crate::engine::drop_pages_of)
        }

        fn close(&mut self, file: usize) {
            self.files.close(file);
        }
    };
}

/// `sync` and `sync_range` of an engine whose open files `self.files`
/// indexes by handle: fsync/fdatasync and sync_file_range(2) on the
/// handle's descriptor.
macro_rules! sync_each_file {
    () => {
        fn sync(&mut self, file: usize, data_only: bool) -> std::io::Result<()> {
            $crate::engine::sync_file(&self.files[file], data_only)
        }

        fn sync_range(
            &mut self,
            file: usize,
            offset: u64,
            len: u64,
            flags: u32,
        ) -> std::io::Result<()> {
            $crate::engine::sync_file_range(&self.files[file], offset, len, flags)
        }
    };
}

/// `sync`, `invalidate` and `commits` of an engine with no file data to
/// sync or cache (cpuio, exec, the file-operation engines, net): syncing
/// and dropping cached pages do nothing and succeed, as in fio, and each
/// I/O completes in `queue`, so there is nothing to commit.
macro_rules! no_file_data {
    () => {
        fn sync(&mut self, _file: usize, _data_only: bool) -> std::io::Result<()> {
            Ok(())
        }

        fn invalidate(&mut self, _path: &std::path::Path) -> std::io::Result<()> {
            Ok(())
        }

        fn commits(&self) -> bool {
            false
        }
    };
}
