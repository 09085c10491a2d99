use super::{Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    number: 7,
    slug: "vectorization",
    title: "vectorization",
    hint: "",
    kind: Kind::OpenCl(&super::l05_local_tiling::TILED),
};
