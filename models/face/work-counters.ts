/**
 * How much image work this thread has done since it started: images decoded ({@link decodeImage}) and
 * detection passes run ({@link FaceImage.detect}, which includes its own fallbacks). Tests read them to
 * check that a job decodes and detects each image once (issue 18, item 5); nothing else depends on them.
 */
export const faceWork = { decodes: 0, detections: 0 };
