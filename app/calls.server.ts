// Server code for the call log (the softphone's reports, the lead panel's history, the dashboard's call figures).
export { answerCall, callStatsToday, endCall, keepCallAlive, listCalls, startCall } from "#server/core/calls/calls";
export type { ManagerCallDay } from "#server/core/calls/calls";
export { clientHistory, historiesOf } from "#server/core/calls/history";
export type { HistoryEntry } from "#server/core/calls/history";
export {
  answerListening,
  answerWhisper,
  hearWhisper,
  startListening,
  startWhisper,
  stopListening,
  whisperOffer,
} from "#server/core/telephony/listening";

export { diskWarning, recentRecordedCalls } from "#server/core/recordings/recordings";
export { recordingAnswer } from "#server/http/recording-answer";
export type { RecordedCall } from "#server/core/recordings/recordings";
