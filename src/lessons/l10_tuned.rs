use super::{Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    number: 10,
    slug: "tuned",
    title: "tuned",
    hint: "",
    kind: Kind::OpenCl(&super::l05_local_tiling::TILED),
};
