//! The writers write regular files only.

use workload::io::{write_dat, write_etc, write_workload_csv};
use workload::{Pet, Task, Trial, WorkloadError};

/// A FIFO, a folder and a symlink to a FIFO at the output path are refused, naming what is
/// there, and left as they were (a FIFO was opened and waited on for a reader before).
#[cfg(unix)]
#[test]
fn the_writers_refuse_anything_but_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let trial = Trial::new(vec![Task {
        task_type: 0,
        arrival: 1.0,
        deadline: 10.0,
    }]);
    let pet = Pet::default_pet(1);
    let folder = d.join("folder");
    std::fs::create_dir(&folder).unwrap();
    let mut targets = vec![(folder, "a folder")];
    let fifo = d.join("fifo");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let link = d.join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        targets.push((fifo, "a FIFO"));
        targets.push((link, "a FIFO"));
    } else {
        eprintln!("skipped the FIFO: mkfifo failed");
    }
    for (path, kind) in &targets {
        let before = std::fs::symlink_metadata(path).unwrap().file_type();
        for result in [
            write_dat(path, &trial),
            write_workload_csv(path, &trial),
            write_etc(path, &pet),
        ] {
            match result {
                Err(WorkloadError::NotAFile { kind: k, .. }) => assert_eq!(k, *kind),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        assert_eq!(std::fs::symlink_metadata(path).unwrap().file_type(), before);
    }
    // A regular file, and a symlink to one, are written.
    let file = d.join("t.dat");
    write_dat(&file, &trial).unwrap();
    let link = d.join("to-file");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    write_dat(&link, &trial).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
