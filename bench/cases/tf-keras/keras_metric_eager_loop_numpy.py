# source: https://github.com/google-research/deeplab2/blob/main/evaluation/coco_instance_ap.py
# framework: tf
# shape: class
# expect: ok
# A COCO-style metric keeps Python lists and calls `.numpy()` in `update_state`: fine, because
# the evaluation loop updates it eagerly; no model runs it inside a traced function.
import numpy as np
import tensorflow as tf


class DetectionRecall(tf.keras.metrics.Metric):
    def __init__(self, name="detection_recall", **kwargs):
        super().__init__(name=name, **kwargs)
        self.category_ids: set[int] = set()
        self.matches: list[float] = []
        self.image_id = 0

    def update_state(self, groundtruth_classes, detection_classes):
        self.category_ids.update(groundtruth_classes.numpy().tolist())
        found = np.isin(groundtruth_classes.numpy(), detection_classes.numpy())
        self.matches.extend(found.astype("float32").tolist())
        self.image_id += 1

    def result(self):
        return tf.constant(np.mean(self.matches) if self.matches else 0.0)

    def reset_state(self):
        self.matches = []
        self.image_id = 0


class PanopticRecall(tf.keras.metrics.Metric):
    def __init__(self, name="panoptic_recall", **kwargs):
        super().__init__(name=name, **kwargs)
        self.detection = DetectionRecall()

    def update_state(self, groundtruth_classes, detection_classes):
        self.detection.update_state(groundtruth_classes, detection_classes)

    def result(self):
        return self.detection.result()


def main():
    metric = PanopticRecall()
    rng = np.random.default_rng(0)
    for _ in range(3):
        truth = tf.constant(rng.integers(0, 5, size=8))
        detected = tf.constant(rng.integers(0, 5, size=6))
        metric.update_state(truth, detected)
    print("recall", float(metric.result()))


if __name__ == "__main__":
    main()
